import type { Db } from "@newsroom/shared/db/index";
import type { KeyUsage } from "./auth/key-usage.ts";
import type { CursorCodec } from "./pagination/cursor.ts";

/** What the client API's features need: plain values, built once by `createClientApiApp`. */
export interface ClientApiDeps {
  /** The database; without one every route answers 503 api_unavailable. */
  db: Db | undefined;
  /** Which deployment this is; decides the key environment accepted (SERVICE_ENV). */
  serviceEnv: "production" | "sandbox" | "development";
  /** Signs and checks pagination cursors. */
  cursors: CursorCodec;
  /** Records `last_used_at` in batches. */
  keyUsage: KeyUsage;
  /** Base address of hosted newsrooms (NEWSROOM_HOST), for links in the feeds. */
  newsroomHost: string;
}
