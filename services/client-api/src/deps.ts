import type { Db } from "@newsroom/shared/db/index";
import type { KeyUsage } from "./auth/key-usage.ts";
import type { FindKey } from "./auth/service.ts";
import type { AnswerCache, RepeatTargets } from "./caching/answers.ts";
import type { CursorCodec } from "./pagination/cursor.ts";

/** What the client API's features need: plain values, built once by `createClientApiApp`. */
export interface ClientApiDeps {
  /** The database; without one every route answers 503 api_unavailable. */
  db: Db | undefined;
  /** Which deployment this is; decides the key environment accepted (SERVICE_ENV). */
  serviceEnv: "production" | "sandbox" | "development";
  /** Signs and checks pagination cursors. */
  cursors: CursorCodec;
  /** Reads a key record with its organization by the key's SHA-256: one indexed read. */
  findKey: FindKey;
  /**
   * Answers kept between requests, keyed by the organization's data version read with the key
   * (see the client API README, Caching); absent when caching is off.
   */
  cache: AnswerCache | undefined;
  /** The GET targets routes answered, answered again without routing (caching/repeat-targets.ts). */
  targets: RepeatTargets;
  /** Records key use (`api_key_usage`) in batches. */
  keyUsage: KeyUsage;
  /** Base address of hosted newsrooms (NEWSROOM_HOST), for links in the feeds. */
  newsroomHost: string;
  /** The API's public address (PUBLIC_BASE_URL): the feeds' own address. */
  publicBaseUrl: string;
}
