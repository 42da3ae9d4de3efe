import { unsubscribeHeaders } from "@newsroom/shared/digest-unsubscribe";
import type { MailMessage } from "@newsroom/shared/mailer";
import type { DigestItem } from "./store.ts";
import type { IsoWeek } from "./week.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const dateFormat = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "long",
  year: "numeric",
  timeZone: "UTC",
});

function escapeHtml(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

export interface DigestIssue {
  week: IsoWeek;
  newsroomName: string;
  /** Items with their public addresses (empty when the newsroom has none). */
  items: (DigestItem & { url: string })[];
  /** How many more were published than the issue lists. */
  more: number;
  newsroomUrl: string;
}

/** The parts of an issue that are the same for every subscriber. */
export function composeIssue(issue: DigestIssue) {
  const { week, items } = issue;
  const last = new Date(week.end.getTime() - DAY_MS);
  const span = `${dateFormat.format(week.start)} to ${dateFormat.format(last)}`;
  const count = `${items.length + issue.more} ${items.length + issue.more === 1 ? "story" : "stories"}`;
  const subject = `${issue.newsroomName} weekly digest: ${count}, week of ${dateFormat.format(week.start)}`;
  const moreLine =
    issue.more > 0
      ? `And ${issue.more} more${issue.newsroomUrl ? ` on ${issue.newsroomUrl}` : ""}`
      : "";

  const text = [
    `Published by ${issue.newsroomName} from ${span}:`,
    "",
    ...items.flatMap((item) => [
      item.title ?? item.slug,
      ...(item.summary ? [item.summary] : []),
      ...(item.url ? [item.url] : []),
      "",
    ]),
    ...(moreLine ? [moreLine, ""] : []),
  ].join("\n");

  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1f2328;">
<p>Published by ${escapeHtml(issue.newsroomName)} from ${escapeHtml(span)}:</p>
${items
  .map(
    (
      item,
    ) => `<h2 style="font-size: 1.125rem; margin: 1.5rem 0 0.25rem;">${item.url ? `<a href="${escapeHtml(item.url)}">${escapeHtml(item.title ?? item.slug)}</a>` : escapeHtml(item.title ?? item.slug)}</h2>
${item.summary ? `<p style="margin: 0;">${escapeHtml(item.summary)}</p>` : ""}`,
  )
  .join("\n")}
${issue.more > 0 && issue.newsroomUrl ? `<p>And ${issue.more} more on <a href="${escapeHtml(issue.newsroomUrl)}">${escapeHtml(issue.newsroomUrl)}</a></p>` : ""}`;

  return { subject, text, html };
}

/** One subscriber's copy: the issue plus that subscriber's own unsubscribe link and headers. */
export function copyFor(
  issue: ReturnType<typeof composeIssue>,
  fromName: string,
  email: string,
  unsubscribeLink: string,
): MailMessage {
  const footer = "You receive this because you subscribed to the weekly digest.";
  return {
    to: [email],
    fromName,
    subject: issue.subject,
    text: `${issue.text}\n--\n${footer}\nUnsubscribe: ${unsubscribeLink}\n`,
    html: `${issue.html}
<hr>
<p style="font-size: 0.875rem; color: #57606a;">${footer}
<a href="${escapeHtml(unsubscribeLink)}">Unsubscribe</a></p>
</body></html>
`,
    headers: unsubscribeHeaders(unsubscribeLink),
  };
}
