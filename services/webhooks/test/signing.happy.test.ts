import { describe, expect, test } from "bun:test";
import { newWebhookSecret } from "@newsroom/shared/secret-box";
import { Webhook } from "standardwebhooks";
import { signedHeaders, signPayload } from "../src/signing/signature.ts";

describe("Standard Webhooks signature", () => {
  test("the specification's test vector", () => {
    const signature = signPayload(
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      "msg_p5jXN8AQM9LWM0D4loKWxJek",
      1614265330,
      '{"test": 2432232314}',
    );
    expect(signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  test("headers signed now verify with the standardwebhooks package", () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ id: "evt", object: "event", data: { note: "é ünïcode" } });
    const headers = signedHeaders(secret, "0b5c0f8e-1c1e-4e8f-9a55-2d3b0a1c9e77", body);
    expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(2);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  test("a changed body or another secret does not verify", () => {
    const secret = newWebhookSecret();
    const headers = signedHeaders(secret, "evt_1", '{"a":1}');
    expect(() => new Webhook(secret).verify('{"a":2}', headers)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify('{"a":1}', headers)).toThrow();
  });
});
