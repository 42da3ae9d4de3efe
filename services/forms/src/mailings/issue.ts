import { type Html, html } from "@newsroom/shared/html";
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

export interface IssueInput {
  week: IsoWeek;
  newsroomName: string;
  /** What the subject calls the issue: "weekly digest" or "newsletter". */
  kind: string;
  /** Items with their public addresses (empty when the newsroom has none). */
  items: (DigestItem & { url: string })[];
  /** How many more were published than the issue lists. */
  more: number;
  newsroomUrl: string;
}

/** The parts of an issue that are the same for every subscriber. */
export interface Issue {
  subject: string;
  text: string;
  html: Html;
}

export function composeIssue(issue: IssueInput): Issue {
  const { week, items } = issue;
  const last = new Date(week.end.getTime() - DAY_MS);
  const span = `${dateFormat.format(week.start)} to ${dateFormat.format(last)}`;
  const total = items.length + issue.more;
  const count = `${total} ${total === 1 ? "story" : "stories"}`;
  const subject = `${issue.newsroomName} ${issue.kind}: ${count}, week of ${dateFormat.format(week.start)}`;
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

  const itemHtml = (item: IssueInput["items"][number]) => {
    const title = item.title ?? item.slug;
    return html`<h2 style="font-size: 1.125rem; margin: 1.5rem 0 0.25rem;">${item.url ? html`<a href="${item.url}">${title}</a>` : title}</h2>
${item.summary ? html`<p style="margin: 0;">${item.summary}</p>` : ""}`;
  };
  const body = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${subject}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1f2328;">
<p>Published by ${issue.newsroomName} from ${span}:</p>
${items.map((item, i) => (i === 0 ? itemHtml(item) : [html`\n`, itemHtml(item)]))}
${issue.more > 0 && issue.newsroomUrl ? html`<p>And ${issue.more} more on <a href="${issue.newsroomUrl}">${issue.newsroomUrl}</a></p>` : ""}`;

  return { subject, text, html: body };
}

/** How a copy lets its reader leave the list (MailingList.unsubscribeOf). */
export interface CopyUnsubscribe {
  link: string;
  headers?: Record<string, string>;
  listManagement?: MailMessage["listManagement"];
}

/** One subscriber's copy: the issue plus why they receive it and how to leave. */
export function copyFor(
  issue: Issue,
  copy: { to: string; fromName: string; reason: string; unsubscribe: CopyUnsubscribe },
): MailMessage {
  const { reason, unsubscribe } = copy;
  return {
    to: [copy.to],
    fromName: copy.fromName,
    subject: issue.subject,
    text: `${issue.text}\n--\n${reason}\nUnsubscribe: ${unsubscribe.link}\n`,
    html: html`${issue.html}
<hr>
<p style="font-size: 0.875rem; color: #57606a;">${reason}
<a href="${unsubscribe.link}">Unsubscribe</a></p>
</body></html>
`.toString(),
    ...(unsubscribe.headers ? { headers: unsubscribe.headers } : {}),
    ...(unsubscribe.listManagement ? { listManagement: unsubscribe.listManagement } : {}),
  };
}
