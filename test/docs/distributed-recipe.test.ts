import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { clusterPlan } from "../../scripts/cluster.ts";

/**
 * The README's manual distributed recipe starts what `npm run start:cluster` starts: every
 * variable the cluster gives each process is in it, with the backends, email and the database.
 */
const root = new URL("../../", import.meta.url).pathname;
const readme = readFileSync(`${root}README.md`, "utf8");
const section = readme.slice(readme.indexOf("## Running distributed"));
const recipe = section.slice(section.indexOf("```sh"), section.indexOf("```\n", 6));

describe("the README's distributed recipe", () => {
  test("names every variable the cluster gives each process", () => {
    const ports = {
      gateway: 3000,
      publicRead: 3101,
      forms: 3102,
      clientApi: 3103,
      webhooks: 3104,
      workspace: 4001,
    };
    for (const [name, process] of Object.entries(clusterPlan(ports))) {
      expect(recipe).toContain(process.entry);
      for (const variable of Object.keys(process.env)) {
        if (name === "workspace" && variable === "PORT") continue; // its links: APP_URL instead
        expect(recipe).toContain(`${variable}=`);
      }
    }
    expect(recipe).toContain("WORKSPACE_URL=http://127.0.0.1:4001");
  });

  test("creates the database and sets the backends, the links and email", () => {
    expect(recipe).toContain("create database newsroom");
    for (const variable of [
      "DATABASE_URL",
      "NATS_URL",
      "REDIS_URL",
      "PUBLIC_BASE_URL",
      "NEWSROOM_HOST",
      "APP_URL",
      "FORMS_FROM_EMAIL",
      "FORMS_TEAM_EMAIL",
      "SES_ENDPOINT",
    ]) {
      expect(recipe).toContain(`${variable}=`);
    }
  });
});
