import { afterAll, beforeAll } from "bun:test";
import { clientApiFixture, type Fixture } from "./support/fixture.ts";
import { securityCases } from "./support/security-cases.ts";

let f: Fixture;
beforeAll(async () => {
  f = await clientApiFixture();
});
afterAll(async () => {
  await f.close();
});

securityCases(
  [
    "GET /v1/webhook_endpoints",
    "GET /v1/webhook_deliveries",
    "GET /v1/webhook_deliveries?endpoint_id",
  ],
  () => f,
);
