import { afterAll } from "bun:test";
import { readFileSync } from "node:fs";
import { observeAnswers } from "@newsroom/shared/http/answer-observer";
import { answerRecorder, recordAnswer } from "@newsroom/shared/openapi/recorder";
import { contractChecker, DESCRIBED_SERVICES } from "../support/contract.ts";

/**
 * Preloaded into every test run: records every answer the apps give and, after the last test,
 * checks each answer of a described service against gateway/openapi.json. A mismatch, or a
 * route or status the document lacks, fails the run. The recorder is installed as the apps'
 * answer observer here, before any test builds an app: production code never calls it.
 */
answerRecorder.enabled = true;
observeAnswers(recordAnswer);

afterAll(async () => {
  await Promise.all(answerRecorder.pending);
  const document = JSON.parse(
    readFileSync(new URL("../../gateway/openapi.json", import.meta.url), "utf8"),
  );
  const check = contractChecker(document);
  const problems = new Set<string>();
  let checked = 0;
  for (const answer of answerRecorder.answers) {
    if (!DESCRIBED_SERVICES.has(answer.service)) continue;
    // Each service's own probes are not public routes (the gateway's are); the gateway's
    // catch-all only passes answers on, and the service that made them is checked.
    if (answer.service !== "gateway" && answer.route.startsWith("/health")) continue;
    if (answer.service === "gateway" && answer.route === "/*") continue;
    // Internal APIs (behind ADMIN_TOKEN, never behind the gateway) are not in the document.
    if (answer.route.startsWith("/internal/")) continue;
    // The reference page and its assets render the document; they are not API operations.
    if (answer.service === "gateway" && answer.route.startsWith("/docs")) continue;
    // The OAuth token, device and revocation endpoints answer as RFC 6749, 8628 and 7009 say;
    // the document names them through the authorization server's metadata and `oauth2` scheme.
    if (answer.service === "workspace-oauth" && answer.route.startsWith("/oauth/")) continue;
    // The index page at / is links for a person, not an API operation.
    if (answer.service === "gateway" && answer.route === "/") continue;
    // Newsroom pages are HTML for readers, not API operations (everything public-read answers
    // as the API is under /v1/).
    if (answer.service === "public-read" && !answer.route.startsWith("/v1/")) continue;
    checked += 1;
    const problem = check(answer);
    if (problem) problems.add(problem);
  }
  if (problems.size > 0) {
    throw new Error(
      `${problems.size} answers do not match the OpenAPI document:\n${[...problems].slice(0, 50).join("\n")}`,
    );
  }
  if (process.env.CONTRACT_REPORT === "true") {
    console.log(`contract: ${checked} answers checked against the OpenAPI document`);
  }
});
