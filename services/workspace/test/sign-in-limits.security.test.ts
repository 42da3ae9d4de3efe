import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import type { Mailer, MailMessage } from "@newsroom/shared/mailer";
import {
  MemoryRateLimitStore,
  type RateLimitStore,
  RedisRateLimitStore,
} from "@newsroom/shared/rate-limit";
import { requireService, type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { addMember } from "../src/identity/members/service.ts";
import { AFTER_ANSWER_MS } from "../src/identity/sign-in/after-answer.ts";
import { createSignInService, SIGN_IN_LIMITS } from "../src/identity/sign-in/service.ts";
import { createOrganization } from "../src/organizations/service.ts";
import { SIGN_IN_PAUSED } from "../src/web/pages/sign-in.ts";
import { type Answer, randomIp, unique, type WebHarness, webHarness } from "./support/web-app.ts";

/**
 * Slow guessing, capped per address and day: ten wrong codes pause sign-in by code for the
 * address (a right code included) and tell its person once; ten code emails a day at most. The
 * counters live in the rate-limit store, so each test runs on memory and, when REDIS_URL is set,
 * on Redis as replicas share it. A stranger's address is answered exactly like a member's.
 */
const redisUrl = requireService("REDIS_URL");
const prefix = () => `t${Math.random().toString(36).slice(2, 8)}:`;
const backends: [string, (() => RateLimitStore) | null][] = [["memory", null]];
if (redisUrl) backends.push(["redis", () => new RedisRateLimitStore(redisUrl, prefix())]);

const WRONG_A_DAY = SIGN_IN_LIMITS.wrongCodesPerAddressPerDay;
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");
const isCodeEmail = (m: { subject: string }) => m.subject.includes("sign-in code");
const isPausedEmail = (m: { subject: string }) => m.subject.includes("paused");

for (const [name, openStore] of backends) {
  describe(`through the web app, on the ${name} store`, () => {
    let h: WebHarness;
    beforeAll(async () => {
      h = await webHarness(openStore ? { REDIS_URL: redisUrl!, RATE_LIMIT_PREFIX: prefix() } : {});
      await h.admin("POST", "/orgs", { slug: "caps-org", name: "Caps" });
    }, 60_000);
    afterAll(() => h?.close());

    test("ten wrong codes pause sign-in by code, a right one refused too, a stranger's alike; the member is told once", async () => {
      const member = unique("guessed");
      const stranger = unique("stranger");
      await h.admin("POST", "/orgs/caps-org/members", { email: member, role: "owner" });
      const client = h.visitor();
      await client.get("/app/sign-in");
      /** The member's answer and the stranger's are the same but for the address. */
      const both = async (fields: { code: string }) => {
        const known = await client.post("/app/sign-in/code", { email: member, ...fields });
        const unknown = await client.post("/app/sign-in/code", { email: stranger, ...fields });
        expect(unknown.status).toBe(known.status);
        expect(unknown.text.replaceAll(stranger, "ADDRESS")).toBe(
          known.text.replaceAll(member, "ADDRESS"),
        );
        return known;
      };
      let code = "";
      const answers: Answer[] = [];
      // Wrong codes on three codes in turn, so the last is neither burnt (five tries) nor expired.
      for (const tries of [4, 4, 2]) {
        code = await h.nextCodeFor(member, () => client.post("/app/sign-in", { email: member }));
        await client.post("/app/sign-in", { email: stranger });
        for (let i = 0; i < tries; i++) answers.push(await both({ code: wrong(code) }));
      }
      expect(answers.map((answer) => answer.status)).toEqual([
        ...Array(WRONG_A_DAY - 1).fill(400),
        429,
      ]);
      expect(answers[0]!.text).toContain("That code is wrong or has expired.");
      expect(answers.at(-1)!.text).toContain(SIGN_IN_PAUSED);

      const right = await both({ code });
      expect(right.status).toBe(429);
      expect(right.text).toContain(SIGN_IN_PAUSED);
      expect(right.headers.get("set-cookie") ?? "").not.toContain("nr_session=");

      // No code leaves while paused; the person hears of the pause once, however many more tries.
      await client.post("/app/sign-in", { email: member });
      await both({ code: wrong(code) });
      const paused = await eventually(
        async () => (await h.ses.to(member)).filter(isPausedEmail),
        (emails) => emails.length > 0,
        { message: "the email telling of the pause" },
      );
      expect(paused[0]!.body.text).toContain(`${WRONG_A_DAY} wrong sign-in codes`);
      await Bun.sleep(AFTER_ANSWER_MS.max + 600);
      const inbox = await h.ses.to(member);
      expect(inbox.filter(isCodeEmail)).toHaveLength(3);
      expect(inbox.filter(isPausedEmail)).toHaveLength(1);
      expect(await h.ses.to(stranger)).toHaveLength(0);
    }, 60_000);
  });
}

/** A mailer that keeps what it is given, as an inbox. */
function inbox(): Mailer & { sent: MailMessage[] } {
  const sent: MailMessage[] = [];
  return {
    from: "newsroom@example.com",
    teamAddress: undefined,
    sent,
    async send(message) {
      sent.push(message);
      return { messageId: String(sent.length) };
    },
  };
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

for (const [name, openStore] of backends) {
  describe(`over a day, on the ${name} store (the clock moved by setSystemTime)`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await testDatabase({ backend: "pglite" });
      await createOrganization(database.db, { slug: "day-org", name: "Day" });
    }, 60_000);
    afterAll(() => database?.close());
    afterEach(() => setSystemTime());

    async function setUp() {
      const mail = inbox();
      const store = openStore ? openStore() : new MemoryRateLimitStore();
      const signIn = createSignInService({
        db: database.db,
        mailer: mail,
        rateLimits: store,
        secretsKey: Buffer.alloc(32, 7),
        appUrl: "http://localhost/app",
        now: () => new Date(),
      });
      const member = unique("daily");
      await addMember(database.db, "day-org", { email: member, role: "viewer" }, "test");
      const codesTo = (to: string) => mail.sent.filter((m) => m.to[0] === to && isCodeEmail(m));
      /** Asks for a code; gives the new code, or null when none was sent. */
      const ask = async (email: string) => {
        const before = codesTo(email).length;
        await signIn.requestCode(email, randomIp());
        await signIn.idle();
        const after = codesTo(email);
        return after.length > before ? /\b(\d{6})\b/.exec(after.at(-1)!.text)![1]! : null;
      };
      return { mail, store, signIn, member, codesTo, ask };
    }

    test("ten code emails per address a day; more are answered alike and send nothing", async () => {
      const { store, signIn, member, codesTo, ask } = await setUp();
      // Three quarter-hours (five codes each at most), then the next day.
      const start = Date.UTC(2031, 0, 6, 1, 0);
      const sent: (string | null)[] = [];
      for (const quarter of [0, 1, 2]) {
        setSystemTime(new Date(start + quarter * 16 * MINUTE));
        for (let i = 0; i < SIGN_IN_LIMITS.codesPerAddress; i++) sent.push(await ask(member));
        // A stranger's address is counted the same way and answered the same (nothing to wait for).
        expect(await signIn.requestCode(unique("stranger"), randomIp())).toBeUndefined();
      }
      expect(sent.filter(Boolean)).toHaveLength(SIGN_IN_LIMITS.codesPerAddressPerDay);
      expect(sent.slice(SIGN_IN_LIMITS.codesPerAddressPerDay)).toEqual(Array(5).fill(null));
      expect(codesTo(member)).toHaveLength(10);

      setSystemTime(new Date(start + 25 * HOUR));
      const nextDay = await ask(member);
      expect(nextDay).toMatch(/^\d{6}$/);
      expect((await signIn.checkCode(member, nextDay!, randomIp())).ok).toBe(true);
      await store.close();
    });

    test("a pause lasts the rest of the day; the next day a code works again", async () => {
      const { mail, store, signIn, member, ask } = await setUp();
      const stranger = unique("stranger");
      const start = Date.UTC(2031, 0, 7, 1, 0);
      setSystemTime(new Date(start));
      const code = (await ask(member))!;
      const reasons = async (email: string, tries: number, given: string) => {
        const seen: string[] = [];
        for (let i = 0; i < tries; i++) {
          const check = await signIn.checkCode(email, given, randomIp());
          seen.push(check.ok ? "ok" : check.reason);
        }
        return seen;
      };
      // Two codes' worth of tries, the second code fresh: the pause, not the burning, refuses it.
      expect(await reasons(member, 5, wrong(code))).toEqual(Array(5).fill("wrong"));
      const second = (await ask(member))!;
      expect(await reasons(member, 5, wrong(second))).toEqual([
        ...Array(4).fill("wrong"),
        "paused",
      ]);
      expect(await reasons(stranger, WRONG_A_DAY + 1, "123456")).toEqual([
        ...Array(WRONG_A_DAY - 1).fill("wrong"),
        "paused",
        "paused",
      ]);
      setSystemTime(new Date(start + 20 * HOUR));
      expect(await reasons(member, 1, second)).toEqual(["paused"]);
      expect(await ask(member)).toBeNull();
      await signIn.idle();
      expect(mail.sent.filter(isPausedEmail).map((m) => m.to[0])).toEqual([member]);

      setSystemTime(new Date(start + 25 * HOUR));
      const nextDay = (await ask(member))!;
      expect(await reasons(stranger, 1, "123456")).toEqual(["wrong"]);
      expect(await reasons(member, 1, nextDay)).toEqual(["ok"]);
      await store.close();
    });
  });
}
