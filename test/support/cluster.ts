import { freePortsAt } from "@newsroom/shared/testing/ports";
import type { ClusterPorts } from "../../scripts/cluster.ts";

/** Six distinct free ports on 127.0.0.1, one for each process of the cluster. */
export async function freeClusterPorts(): Promise<ClusterPorts> {
  const base = await freePortsAt([0, 1, 2, 3, 4, 5]);
  return {
    gateway: base,
    publicRead: base + 1,
    forms: base + 2,
    clientApi: base + 3,
    webhooks: base + 4,
    workspace: base + 5,
  };
}

/**
 * The operator's internal API at `base` (…/internal/v1): JSON in and out, the admin token; an
 * answer that is not 2xx throws with its status and body.
 */
export function operatorApi(base: string, token: string) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const json = await response.json();
    if (!response.ok) {
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    }
    return json;
  };
}
