import { loadConfig, secretsKey } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { type Mailer, openMailer } from "@newsroom/shared/mailer";
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { WorkspaceConfig } from "../config.ts";
import { DigestRunOut, DigestSendIn } from "./model.ts";
import { type DigestDeps, sendWeeklyDigest } from "./service.ts";

/** What the digest needs beyond the workspace's deps: the config (email, links) and a clock. */
export interface DigestOptions {
  config: WorkspaceConfig;
  /** Defaults to the mailer the config describes. */
  mailer?: Mailer | null;
  now?: () => Date;
}

function digestDeps(db: Db, options: DigestOptions): DigestDeps {
  return {
    db,
    config: options.config,
    mailer: options.mailer === undefined ? openMailer(options.config) : options.mailer,
    secretsKey: secretsKey(options.config),
    now: options.now ?? (() => new Date()),
  };
}

/**
 * `POST /internal/v1/digest/send` (`npm run admin -- digest send [--week 2026-W07]`). Without
 * options the config is read from the environment on first use.
 */
export function digestRoutes(db: Db, options?: DigestOptions) {
  let deps: DigestDeps | undefined;
  const resolve = () => {
    deps ??= digestDeps(db, options ?? { config: loadConfig(WorkspaceConfig) });
    return deps;
  };
  return new Elysia().post(
    "/internal/v1/digest/send",
    async ({ body }) => sendWeeklyDigest(resolve(), body?.week),
    { body: Type.Optional(DigestSendIn), response: DigestRunOut },
  );
}
