import { describe, expect, test } from "bun:test";
import { formSubmissions } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { validContact } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms } = formsWorld();

describe("POST /v1/public/contact", () => {
  for (const as of ["json", "form", "multipart"] as const) {
    test(`a ${as} enquiry sends the team email and the acknowledgement`, async () => {
      const body = validContact({ timeline: "quarter", topic: "newsroom", role: "Editor" });
      const response = await forms.post("/v1/public/contact", body, { as });
      expect(response.status).toBe(202);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(await response.json()).toEqual({ status: "accepted" });

      const team = (await ses.to(forms.teamAddress)).filter((email) =>
        email.body.text?.includes(body.submission_id),
      );
      expect(team).toHaveLength(1);
      expect(team[0]!.from).toBe("forms@example.com");
      expect(team[0]!.replyTo).toEqual([body.email]);
      expect(team[0]!.subject).toBe("Contact enquiry (websites) from Ada Lovelace");
      expect(team[0]!.body.text).toContain(
        "Message: We would like a new website for our newsroom.",
      );
      expect(team[0]!.body.text).toContain("Timeline: quarter");
      expect(team[0]!.body.text).toContain("Role: Editor");

      const ack = await ses.to(body.email);
      expect(ack).toHaveLength(1);
      expect(ack[0]!.subject).toBe("We received your enquiry");
      expect(ack[0]!.replyTo).toEqual([forms.teamAddress]);
    });
  }

  test("the only trace is the submission id, its route, status and expiry", async () => {
    const body = validContact();
    expect((await forms.post("/v1/public/contact", body)).status).toBe(202);
    const rows = await forms.database.db
      .select()
      .from(formSubmissions)
      .where(eq(formSubmissions.submissionId, body.submission_id));
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(Object.keys(row).sort()).toEqual([
      "createdAt",
      "expiresAt",
      "route",
      "status",
      "submissionId",
    ]);
    expect(row.route).toBe("contact");
    expect(row.status).toBe("sent");
    expect(row.expiresAt.getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    expect(JSON.stringify(row)).not.toContain(body.email);
  });

  test("a repeated submission_id sends nothing new and answers the same 202", async () => {
    const body = validContact();
    const first = await forms.post("/v1/public/contact", body);
    const second = await forms.post("/v1/public/contact", body);
    expect(second.status).toBe(first.status);
    expect(await second.text()).toBe(await first.text());
    expect(await ses.to(body.email)).toHaveLength(1);
  });

  test("20 parallel posts with one submission_id send exactly two emails", async () => {
    const body = validContact();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => forms.post("/v1/public/contact", body)),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(202));
    const all = await ses.emails();
    const batch = all.filter(
      (email) =>
        email.destination.to.includes(body.email) ||
        (email.destination.to.includes(forms.teamAddress) &&
          email.body.text?.includes(body.submission_id)),
    );
    expect(batch).toHaveLength(2);
  });
});
