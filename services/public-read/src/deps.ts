import type { Config } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import type { Reader } from "./caching/reader.ts";

/** What the public read routes need. */
export interface ReadDeps {
  db: Db;
  config: Pick<Config, "HOUSE_ORG" | "NEWSROOM_HOST" | "PUBLIC_BASE_URL">;
  reader: Reader;
}
