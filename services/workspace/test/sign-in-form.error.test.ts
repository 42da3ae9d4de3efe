import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { orgWithMembers, unique, type WebHarness, webHarness } from "./support/web-app.ts";

/**
 * The sign-in form refuses an empty or malformed address beside the field (422), and sends
 * nothing; a well-formed address gets the same answer whether or not it is a member's, and the
 * code page then shows it filled in.
 */
describe("the sign-in form", () => {
  let h: WebHarness;
  let member: string;

  beforeAll(async () => {
    h = await webHarness();
    member = (await orgWithMembers(h, "sign-in-form", 0)).members.viewer;
  }, 120_000);
  afterAll(() => h?.close());

  for (const typed of ["", "   ", "not-an-address", "name@", "two@at@example.com"]) {
    test(`"${typed}" is refused beside the field (422), with nothing sent`, async () => {
      const client = h.visitor();
      await client.get("/app/sign-in");
      const answer = await client.post("/app/sign-in", { email: typed });
      expect(answer.status).toBe(422);
      expect(answer.text).toContain(
        '<p class="error" id="field-email-error">Enter your email address, such as name@example.com.</p>',
      );
      expect(answer.text).toMatch(/id="field-email"[^>]*aria-invalid="true"/);
      expect(answer.text).toContain(`value="${typed.trim()}"`);
      expect(answer.headers.get("location")).toBeNull();
    });
  }

  test("a member's address and a stranger's get the same answer; the code page is prefilled", async () => {
    const answers = [];
    for (const email of [member, unique("stranger")]) {
      const client = h.visitor();
      await client.get("/app/sign-in");
      const answer = await client.post("/app/sign-in", { email: `  ${email} ` });
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location")).toBe("/app/sign-in/code");
      const code = await client.get("/app/sign-in/code");
      expect(code.text).toMatch(
        new RegExp(`id="field-email" name="email" type="email"\\s+value="${email}"`),
      );
      answers.push(code.text.replace(email, "ADDRESS").replace(/value="[^"]{43}"/, ""));
    }
    expect(answers[0]).toBe(answers[1]!);
    // The code is the member's alone.
    expect(await h.codeFor(member)).toMatch(/^\d{6}$/);
  });

  test("another browser's code page is not prefilled", async () => {
    const client = h.visitor();
    const code = await client.get("/app/sign-in/code");
    expect(code.text).toMatch(/id="field-email" name="email" type="email"\s+value=""/);
  });
});
