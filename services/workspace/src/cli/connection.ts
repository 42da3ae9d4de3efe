import { adminToken, type Config } from "@newsroom/shared/config";
import { readLocalPorts } from "@newsroom/shared/local-ports";

/**
 * Where the workspace listens and with which token: WORKSPACE_URL, else WORKSPACE_PORT when set,
 * else the ports a running `npm start` recorded, else the default port. The token is
 * ADMIN_TOKEN, else the one a development start recorded, else the development default.
 */
export function workspaceConnection(
  config: Config,
  env: Record<string, string | undefined> = process.env,
): { base: string; token: string } {
  const recorded = readLocalPorts(config.LOCAL_PORTS_FILE);
  const base =
    env.WORKSPACE_URL ??
    (env.WORKSPACE_PORT === undefined ? recorded?.workspace_url : undefined) ??
    `http://127.0.0.1:${config.WORKSPACE_PORT}`;
  const token = env.ADMIN_TOKEN ?? recorded?.admin_token ?? adminToken(config);
  return { base: base.replace(/\/$/, ""), token };
}
