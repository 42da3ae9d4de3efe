import { expect, test } from "bun:test";
import { disabledEndpointEmail } from "../src/webhook-endpoints/disabled-notice.ts";

/** What the organization and the receiver wrote reaches the email's HTML as text, never markup. */
test("the disabled-endpoint email escapes the organization's name, the URL and the last error", () => {
  const mail = disabledEndpointEmail(
    ["owner@example.com"],
    `<b>Acme</b> & "Co"`,
    {
      organization_id: "00000000-0000-4000-8000-000000000001",
      endpoint_id: "00000000-0000-4000-8000-000000000002",
      url: `https://hooks.example.com/in?a=1&b="x"`,
      reason: "failing",
      failed_in_a_row: 3,
      last_error: "receiver answered <script>alert(1)</script>",
    },
    "https://app.example.com/app",
  );
  expect(mail.html).toContain("&lt;b&gt;Acme&lt;/b&gt; &amp; &quot;Co&quot;");
  expect(mail.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  expect(mail.html).toContain("https://hooks.example.com/in?a=1&amp;b=&quot;x&quot;");
  expect(mail.html).not.toContain("<script>");
  expect(mail.html).not.toContain("<b>Acme");
  expect(mail.text).toContain(`<b>Acme</b> & "Co"`);
});

test("an endpoint whose receiver answered 410 Gone is explained as such, not as failed retries", () => {
  const mail = disabledEndpointEmail(
    ["owner@example.com"],
    "Acme",
    {
      organization_id: "00000000-0000-4000-8000-000000000001",
      endpoint_id: "00000000-0000-4000-8000-000000000002",
      url: "https://hooks.example.com/in",
      reason: "failing",
      failed_in_a_row: 1,
      last_error: "receiver answered 410",
      receiver_gone: true,
    },
    "https://app.example.com/app",
  );
  expect(mail.text).toContain("the receiver answered 410 Gone");
  expect(mail.text).not.toContain("after every retry");
});
