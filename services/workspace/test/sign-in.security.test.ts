import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { workspaceSessions, workspaceSignInCodes } from "@newsroom/shared/db/schema";
import type { Mailer } from "@newsroom/shared/mailer";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { testDatabase } from "@newsroom/shared/testing/database";
import { eq } from "drizzle-orm";
import { addMember } from "../src/identity/members/service.ts";
import { findPersonByEmail } from "../src/identity/members/store.ts";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "../src/identity/sessions/service.ts";
import { CODE_TTL_MS, createSignInService } from "../src/identity/sign-in/service.ts";
import { createOrganization } from "../src/organizations/service.ts";
import {
  type Answer,
  unique,
  type WebClient,
  type WebHarness,
  webHarness,
} from "./support/web-app.ts";

/** Sign-in abuse: wrong, expired, reused and borrowed codes, enumeration, CSRF, sessions. */
let h: WebHarness;
let member: () => Promise<string>;

beforeAll(async () => {
  h = await webHarness();
  await h.admin("POST", "/orgs", { slug: "signin-org", name: "Sign-in" });
  member = async () => {
    const email = unique("member");
    await h.admin("POST", "/orgs/signin-org/members", { email, role: "editor" });
    return email;
  };
}, 60_000);
afterAll(() => h?.close());

const db = () => h.runtime.database.db;

/** Asks for a code as a fresh visitor; gives the visitor (on the code page) and the code. */
async function askForCode(email: string, client: WebClient = h.visitor()) {
  await client.get("/app/sign-in");
  const code = await h.nextCodeFor(email, async () => {
    const answer = await client.post("/app/sign-in", { email });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/app/sign-in/code");
  });
  await client.get("/app/sign-in/code");
  return { client, code };
}

const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

function expectCodeRefused(answer: Answer) {
  expect(answer.status).toBe(400);
  expect(answer.headers.get("set-cookie") ?? "").not.toContain("nr_session=");
  expect(answer.text).toContain('<p class="error" id="field-code-error">');
  expect(answer.text).toContain('aria-describedby="field-code-error"');
}

describe("codes", () => {
  test("the right code signs in once: 303 to /app/ with an HttpOnly, Lax session cookie", async () => {
    const email = await member();
    const { client, code } = await askForCode(email);
    const answer = await client.post("/app/sign-in/code", { email, code });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/app/");
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith("nr_session="))!;
    expect(cookie).toMatch(/^nr_session=[A-Za-z0-9_-]{43}; Path=\/app; HttpOnly; SameSite=Lax/);
    expect(cookie).not.toContain("Secure"); // APP_URL is http here
    expect((await client.get("/app/")).status).toBe(200);

    const again = h.visitor();
    await again.get("/app/sign-in/code");
    expectCodeRefused(await again.post("/app/sign-in/code", { email, code }));
  });

  test("a wrong code answers the form again with the error beside the field (400)", async () => {
    const email = await member();
    const { client, code } = await askForCode(email);
    const answer = await client.post("/app/sign-in/code", { email, code: wrong(code) });
    expectCodeRefused(answer);
    expect(answer.text).toContain(`value="${email}"`);
    expect((await client.post("/app/sign-in/code", { email, code })).status).toBe(303);
  });

  test("an expired code (past 10 minutes) is refused", async () => {
    const email = await member();
    const { client, code } = await askForCode(email);
    h.clock.advance(CODE_TTL_MS + 1_000);
    try {
      expectCodeRefused(await client.post("/app/sign-in/code", { email, code }));
    } finally {
      h.clock.advance(-(CODE_TTL_MS + 1_000));
    }
    expectCodeRefused(await client.post("/app/sign-in/code", { email, code }));
  });

  test("a code is bound to its address: another member's address refuses it", async () => {
    const owner = await member();
    const other = await member();
    const { client, code } = await askForCode(owner);
    expectCodeRefused(await client.post("/app/sign-in/code", { email: other, code }));
    expect((await client.post("/app/sign-in/code", { email: owner, code })).status).toBe(303);
  });

  test("five wrong tries burn the code: the sixth, right, is refused", async () => {
    const email = await member();
    const { client, code } = await askForCode(email);
    for (let i = 0; i < 5; i++) {
      expectCodeRefused(await client.post("/app/sign-in/code", { email, code: wrong(code) }));
    }
    expectCodeRefused(await client.post("/app/sign-in/code", { email, code }));
  });

  test("a new code replaces the old one", async () => {
    const email = await member();
    const first = await askForCode(email);
    await Bun.sleep(1_100); // the emulator stamps emails in whole seconds
    const second = await askForCode(email);
    expect(second.code).not.toBe(first.code);
    expectCodeRefused(await second.client.post("/app/sign-in/code", { email, code: first.code }));
    expect(
      (await second.client.post("/app/sign-in/code", { email, code: second.code })).status,
    ).toBe(303);
  });

  test("only an HMAC of the code and a SHA-256 of the session token are stored", async () => {
    const email = await member();
    const { client, code } = await askForCode(email);
    const person = (await findPersonByEmail(db(), email))!;
    const [stored] = await db()
      .select()
      .from(workspaceSignInCodes)
      .where(eq(workspaceSignInCodes.personId, person.id));
    expect(stored!.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored!.codeHash).not.toContain(code);
    await client.post("/app/sign-in/code", { email, code });
    const token = client.cookies.get("nr_session")!;
    const [session] = await db()
      .select()
      .from(workspaceSessions)
      .where(eq(workspaceSessions.personId, person.id));
    expect(session!.tokenHash).toBe(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
    expect(session!.freshAt.getTime()).toBe(session!.createdAt.getTime());
  });
});

describe("no enumeration", () => {
  const comparable = (answer: Answer) => {
    const headers: [string, string][] = [];
    answer.headers.forEach((value, name) => {
      if (name !== "date" && name !== "x-request-id") headers.push([name, value]);
    });
    return { status: answer.status, text: answer.text, headers };
  };

  test("asking for a code: byte-identical answers for a member and a stranger, but for the address itself", async () => {
    const client = h.visitor();
    await client.get("/app/sign-in");
    const asked = async (email: string) => {
      const answer = comparable(await client.post("/app/sign-in", { email }));
      // The code page is filled in with the address asked for: the one difference.
      const cookie = `nr_sign_in_email=${encodeURIComponent(email)};`;
      expect(answer.headers).toContainEqual(["set-cookie", expect.stringContaining(cookie)]);
      return JSON.parse(JSON.stringify(answer).replaceAll(encodeURIComponent(email), "ADDRESS"));
    };
    const known = await asked(await member());
    expect(known.status).toBe(303);
    expect(await asked(unique("stranger"))).toEqual(known);
    // Nonsense is refused for its form alone (the sign-in form's tests), never for membership.
  });

  test("asking for a code answers before the lookup and the email, for any address", async () => {
    const database = await testDatabase({ backend: "pglite" });
    try {
      await createOrganization(database.db, { slug: "slow-mail", name: "Slow mail" });
      await addMember(database.db, "slow-mail", { email: "held@example.com", role: "viewer" }, "t");
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const sent: string[] = [];
      const mailer: Mailer = {
        from: "newsroom@example.com",
        teamAddress: undefined,
        send: async (message) => {
          await held;
          sent.push(message.to[0]!);
          return { messageId: "m" };
        },
      };
      const signIn = createSignInService({
        db: database.db,
        mailer,
        rateLimits: new MemoryRateLimitStore(),
        secretsKey: Buffer.alloc(32, 1),
        appUrl: "http://localhost/app",
        now: () => new Date(),
      });
      // Both resolve while the email is held: the answer never waits for lookup or provider.
      await signIn.requestCode("held@example.com", "10.0.0.1");
      await signIn.requestCode("stranger@example.com", "10.0.0.1");
      expect(sent).toEqual([]);
      release();
      await signIn.idle();
      expect(sent).toEqual(["held@example.com"]);
    } finally {
      await database.close();
    }
  }, 30_000);

  test("a wrong code: the same page for a member and a stranger, but the address", async () => {
    const email = await member();
    const stranger = unique("stranger");
    const { client } = await askForCode(email);
    const known = await client.post("/app/sign-in/code", { email, code: "123456" });
    const unknown = await client.post("/app/sign-in/code", { email: stranger, code: "123456" });
    expect(unknown.status).toBe(known.status);
    expect(unknown.text.replaceAll(stranger, "ADDRESS")).toBe(
      known.text.replaceAll(email, "ADDRESS"),
    );
  });

  test("a stranger gets no email", async () => {
    const stranger = unique("stranger");
    const client = h.visitor();
    await client.get("/app/sign-in");
    await client.post("/app/sign-in", { email: stranger });
    await Bun.sleep(500);
    expect(await h.ses.to(stranger)).toHaveLength(0);
  });
});

describe("throttles", () => {
  test("five codes per address per window; more send nothing, same answer", async () => {
    const email = await member();
    for (let i = 0; i < 7; i++) {
      const client = h.visitor();
      await client.get("/app/sign-in");
      const answer = await client.post("/app/sign-in", { email });
      expect(answer.status).toBe(303);
    }
    await Bun.sleep(1_000);
    expect(await h.ses.to(email)).toHaveLength(5);
  });

  test("twenty code requests per client address; more send nothing", async () => {
    const client = h.visitor();
    await client.get("/app/sign-in");
    for (let i = 0; i < 20; i++) await client.post("/app/sign-in", { email: unique("filler") });
    const email = await member();
    expect((await client.post("/app/sign-in", { email })).status).toBe(303);
    await Bun.sleep(1_000);
    expect(await h.ses.to(email)).toHaveLength(0);
  });

  test("thirty code checks per client address; then 429, even with the right code", async () => {
    const email = await member();
    const { client, code } = await askForCode(email);
    for (let i = 0; i < 30; i++) {
      await client.post("/app/sign-in/code", { email: unique("guess"), code: "000000" });
    }
    const answer = await client.post("/app/sign-in/code", { email, code });
    expect(answer.status).toBe(429);
  });
});

describe("CSRF", () => {
  test("no token, a wrong one, or another visitor's: 403 and no email", async () => {
    const email = await member();
    const client = h.visitor();
    await client.get("/app/sign-in");
    const other = h.visitor();
    await other.get("/app/sign-in");
    expect((await client.post("/app/sign-in", { email, _csrf: null })).status).toBe(403);
    expect((await client.post("/app/sign-in", { email, _csrf: "x".repeat(43) })).status).toBe(403);
    expect((await client.post("/app/sign-in", { email, _csrf: other.csrf })).status).toBe(403);
    const noCookie = h.visitor();
    noCookie.csrf = client.csrf;
    expect((await noCookie.post("/app/sign-in", { email })).status).toBe(403);
    await Bun.sleep(500);
    expect(await h.ses.to(email)).toHaveLength(0);
  });

  test("another Origin, or without Origin another Referer: 403", async () => {
    const email = await member();
    const client = h.visitor();
    await client.get("/app/sign-in");
    const evil = "https://evil.example";
    expect((await client.post("/app/sign-in", { email }, { origin: evil })).status).toBe(403);
    expect(
      (await client.post("/app/sign-in", { email }, { origin: null, referer: `${evil}/a` })).status,
    ).toBe(403);
    expect((await client.post("/app/sign-in", { email }, { origin: "null" })).status).toBe(403);
    expect(
      (
        await client.post(
          "/app/sign-in",
          { email },
          { origin: null, referer: `${h.url}/app/sign-in` },
        )
      ).status,
    ).toBe(303);
  });

  test("signed in, the token is bound to the session: the pre-sign-in one no longer works", async () => {
    const email = await member();
    const { client, code } = await askForCode(email);
    const before = client.csrf;
    await client.post("/app/sign-in/code", { email, code });
    await client.get("/app/");
    expect(client.csrf).not.toBe(before);
    expect((await client.post("/app/sign-out", { _csrf: before })).status).toBe(403);
    expect((await client.get("/app/")).status).toBe(200);
  });
});

describe("sessions", () => {
  async function signedIn() {
    const email = await member();
    return { email, client: await h.signedIn(email) };
  }

  test("12 hours idle ends a session; use keeps it alive", async () => {
    const { client } = await signedIn();
    const moved: number[] = [];
    const advance = (ms: number) => {
      h.clock.advance(ms);
      moved.push(ms);
    };
    try {
      advance(SESSION_IDLE_MS - 60_000);
      expect((await client.get("/app/")).status).toBe(200);
      advance(SESSION_IDLE_MS - 60_000);
      expect((await client.get("/app/")).status).toBe(200);
      advance(SESSION_IDLE_MS);
      const answer = await client.get("/app/");
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location")).toBe("/app/sign-in");
    } finally {
      h.clock.advance(-moved.reduce((a, b) => a + b, 0));
    }
    expect((await client.get("/app/")).status).toBe(303);
  });

  test("7 days end a session, however busy", async () => {
    const { client } = await signedIn();
    let moved = 0;
    try {
      while (moved + SESSION_IDLE_MS / 2 < SESSION_ABSOLUTE_MS) {
        h.clock.advance(SESSION_IDLE_MS / 2);
        moved += SESSION_IDLE_MS / 2;
        expect((await client.get("/app/")).status).toBe(200);
      }
      h.clock.advance(SESSION_IDLE_MS / 2);
      moved += SESSION_IDLE_MS / 2;
      expect((await client.get("/app/")).status).toBe(303);
    } finally {
      h.clock.advance(-moved);
    }
  });

  test("sign out ends this session: its token is dead even if replayed", async () => {
    const { client } = await signedIn();
    const token = client.cookies.get("nr_session")!;
    await client.get("/app/");
    const out = await client.post("/app/sign-out");
    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie().join()).toContain("nr_session=; Path=/app");
    client.cookies.set("nr_session", token);
    expect((await client.get("/app/")).status).toBe(303);
  });

  test("sign out everywhere, after a confirmation page, ends every session of the person", async () => {
    const email = await member();
    const laptop = await h.signedIn(email);
    const phone = await h.signedIn(email);
    const someoneElse = (await signedIn()).client;
    const confirm = await laptop.get("/app/sign-out-everywhere");
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('action="/app/sign-out-everywhere"');
    expect((await laptop.post("/app/sign-out-everywhere", { confirm: "yes" })).status).toBe(303);
    expect((await laptop.get("/app/")).status).toBe(303);
    expect((await phone.get("/app/")).status).toBe(303);
    expect((await someoneElse.get("/app/")).status).toBe(200);
  });

  test("pages need a session: signed out, every page redirects to sign-in", async () => {
    const client = h.visitor();
    for (const path of ["/app/", "/app/orgs/signin-org", "/app/sign-out-everywhere"]) {
      const answer = await client.get(path);
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location")).toBe("/app/sign-in");
    }
  });
});
