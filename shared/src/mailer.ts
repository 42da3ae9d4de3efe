import type * as SesSdk from "@aws-sdk/client-sesv2";
import type Libmime from "libmime";
import type { Config } from "./config.ts";
import { inSpan, SpanKind, tracingOn } from "./tracing/index.ts";

/** One email: plain text always, HTML optionally, extra headers (such as List-Unsubscribe). */
export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  html?: string;
  replyTo?: string[];
  /** A display name shown before the sender address. */
  fromName?: string;
  headers?: Record<string, string>;
  /**
   * Sent to a member of this SES v2 contact list: SES adds the RFC 2369 and RFC 8058
   * `List-Unsubscribe` headers and replaces `{{amazonSESUnsubscribeUrl}}` in the body.
   */
  listManagement?: { contactListName: string; topicName?: string };
}

/** Where SES writes the contact's own unsubscribe link (with `listManagement`). */
export const SES_UNSUBSCRIBE_URL = "{{amazonSESUnsubscribeUrl}}";

/** Sends email. Throws `MailDeliveryError` when the provider refuses or cannot be reached. */
export interface Mailer {
  /** The sender address (FORMS_FROM_EMAIL). */
  readonly from: string;
  /** Where team notifications go (FORMS_TEAM_EMAIL), when configured. */
  readonly teamAddress: string | undefined;
  send(message: MailMessage): Promise<{ messageId: string }>;
}

export class MailDeliveryError extends Error {
  constructor(
    message: string,
    /** The provider's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
    this.name = "MailDeliveryError";
  }
}

/**
 * Bidirectional formatting characters (embeddings, overrides, isolates, the direction marks): in
 * a subject or a name they can make text typed into a form read as something else.
 */
const BIDI_FORMATTING = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/**
 * A header value (every subject, sender name and extra header) without line breaks or other
 * control characters, C0 and C1 (they become spaces), nor bidirectional formatting characters
 * (dropped).
 */
export function headerSafe(value: string): string {
  let out = "";
  for (const char of value.replace(BIDI_FORMATTING, "")) {
    const code = char.codePointAt(0)!;
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) ? " " : char;
  }
  return out.replace(/ {2,}/g, " ").trim();
}

/**
 * `Name <address>`, or the bare address, in ASCII as SES requires: an ASCII name as an RFC 5322
 * quoted-string (so commas and other specials stay part of the name), any other name as RFC 2047
 * encoded-words (`=?UTF-8?Q?...?=`), which mail clients show as the original name.
 */
export function formatAddress(address: string, name?: string): string {
  const safe = name ? headerSafe(name) : "";
  if (!safe) return address;
  if (/^[\x20-\x7e]*$/.test(safe)) return `"${safe.replace(/["\\]/g, "\\$&")}" <${address}>`;
  return `${mime().encodeWord(safe, "Q", 52)} <${address}>`;
}

let libmime: typeof Libmime | undefined;
/** libmime, read the first time a name needs encoded-words: about 6 MiB no start needs. */
function mime(): typeof Libmime {
  libmime ??= require("libmime") as typeof Libmime;
  return libmime;
}

export interface SesOptions {
  region: string;
  endpoint?: string;
  /** How long one call may take, retries included (SES_TIMEOUT_MS). */
  timeoutMs: number;
}

/**
 * A command of the SES v2 SDK (`new sdk.SendEmailCommand(...)`). The client's own signature ties
 * each command to its output through generics of the SDK's internal packages; callers name the
 * output instead.
 */
interface SesCommand {
  readonly input: object;
}
type SendCommand = (command: SesCommand, options: { abortSignal: AbortSignal }) => Promise<unknown>;

/** Calls SES v2 (email and contact lists): the command `make` builds from the SDK. */
export interface SesCalls {
  send<Output>(make: (sdk: typeof SesSdk) => SesCommand): Promise<Output>;
}

/**
 * An SES v2 client (email and contact lists), made on its first call, and the deadline of its
 * calls. The SDK's own request timeout only logs a warning, so each call carries an abort signal:
 * a provider that accepts the connection and never answers fails the call after `timeoutMs`
 * instead of holding it.
 */
export function sesClient(options: SesOptions): SesCalls {
  const local = options.endpoint !== undefined && !process.env.AWS_ACCESS_KEY_ID;
  let opened: Promise<{ sdk: typeof SesSdk; send: SendCommand }> | undefined;
  // The SDK is read on the first call: a process that never sends email never loads it (about
  // 6 MiB of resident memory beyond the modules every process loads).
  const open = async () => {
    const sdk = await import("@aws-sdk/client-sesv2");
    const client = new sdk.SESv2Client({
      region: options.region,
      endpoint: options.endpoint,
      // The emulator checks only that a signature is present.
      credentials: local ? { accessKeyId: "local", secretAccessKey: "local" } : undefined,
      maxAttempts: 2,
      requestHandler: { connectionTimeout: Math.min(3_000, options.timeoutMs) },
    });
    return { sdk, send: client.send.bind(client) as unknown as SendCommand };
  };
  return {
    async send<Output>(make: (sdk: typeof SesSdk) => SesCommand): Promise<Output> {
      // The deadline counts from the call, the SDK's first loading included.
      const abortSignal = AbortSignal.timeout(options.timeoutMs);
      opened ??= open().catch((error) => {
        opened = undefined;
        throw error;
      });
      const { sdk, send } = await opened;
      const command = make(sdk);
      if (!tracingOn()) return (await send(command, { abortSignal })) as Output;
      // The command's name only: never its input (addresses, subjects, bodies).
      const operation = command.constructor.name.replace(/Command$/, "");
      return inSpan(
        `SES ${operation}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            "rpc.system": "aws-api",
            "rpc.service": "SESv2",
            "rpc.method": operation,
            "cloud.region": options.region,
          },
        },
        async () => (await send(command, { abortSignal })) as Output,
      );
    },
  };
}

/** Amazon SES v2 (or the local SES v2 emulator when SES_ENDPOINT is set). */
export class SesMailer implements Mailer {
  private readonly ses: SesCalls;

  constructor(
    readonly from: string,
    readonly teamAddress: string | undefined,
    options: SesOptions,
  ) {
    this.ses = sesClient(options);
  }

  async send(message: MailMessage): Promise<{ messageId: string }> {
    const headers = Object.entries(message.headers ?? {}).map(([Name, Value]) => ({
      Name,
      Value: headerSafe(Value),
    }));
    const command = (sdk: typeof SesSdk) =>
      new sdk.SendEmailCommand({
        FromEmailAddress: formatAddress(this.from, message.fromName),
        Destination: { ToAddresses: message.to },
        ReplyToAddresses: message.replyTo,
        ...(message.listManagement
          ? {
              ListManagementOptions: {
                ContactListName: message.listManagement.contactListName,
                TopicName: message.listManagement.topicName,
              },
            }
          : {}),
        Content: {
          Simple: {
            Subject: { Data: headerSafe(message.subject), Charset: "UTF-8" },
            Body: {
              Text: { Data: message.text, Charset: "UTF-8" },
              ...(message.html ? { Html: { Data: message.html, Charset: "UTF-8" } } : {}),
            },
            ...(headers.length > 0 ? { Headers: headers } : {}),
          },
        },
      });
    try {
      const result = await this.ses.send<SesSdk.SendEmailCommandOutput>(command);
      return { messageId: result.MessageId ?? "" };
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata
        ?.httpStatusCode;
      const name = error instanceof Error ? error.name : "Error";
      throw new MailDeliveryError(`email provider refused the message (${name})`, status);
    }
  }
}

/** The mailer the config describes, or null when email is not configured (no sender address). */
export function openMailer(
  config: Pick<
    Config,
    "FORMS_FROM_EMAIL" | "FORMS_TEAM_EMAIL" | "SES_ENDPOINT" | "SES_REGION" | "SES_TIMEOUT_MS"
  >,
): Mailer | null {
  if (!config.FORMS_FROM_EMAIL) return null;
  return new SesMailer(config.FORMS_FROM_EMAIL, config.FORMS_TEAM_EMAIL, {
    region: config.SES_REGION,
    endpoint: config.SES_ENDPOINT,
    timeoutMs: config.SES_TIMEOUT_MS,
  });
}
