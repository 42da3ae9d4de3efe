import type { ListContactsCommandOutput } from "@aws-sdk/client-sesv2";
import type { Config } from "./config.ts";
import { MailDeliveryError, type SesCalls, type SesOptions, sesClient } from "./mailer.ts";

/**
 * Organization newsletters keep their confirmed subscribers in SES v2 contact lists, never in
 * the service's own database: the forms service adds them, the workspace reads them to send.
 */

/** The contact list of one organization: named after its id, which never changes. */
export function contactListOf(organization: { id: string; slug: string; name: string }) {
  return {
    name: `org-${organization.id}`,
    description: `Newsletter of ${organization.name} (${organization.slug})`.slice(0, 256),
  };
}

/**
 * Where contact-list calls go: SES_CONTACTS_ENDPOINT, else AWS when email goes to AWS; null next
 * to the local SES emulator (SES_ENDPOINT set), which has no contact lists.
 */
export function contactListsOptions(
  config: Pick<Config, "SES_CONTACTS_ENDPOINT" | "SES_ENDPOINT" | "SES_REGION" | "SES_TIMEOUT_MS">,
): SesOptions | null {
  const timeoutMs = config.SES_TIMEOUT_MS;
  if (config.SES_CONTACTS_ENDPOINT) {
    return { region: config.SES_REGION, endpoint: config.SES_CONTACTS_ENDPOINT, timeoutMs };
  }
  if (config.SES_ENDPOINT) return null;
  return { region: config.SES_REGION, timeoutMs };
}

/** Reads a contact list's subscribed addresses (opted in), page by page. */
export interface ContactListReader {
  optedIn(listName: string): AsyncIterable<string[]>;
}

export class SesContactListReader implements ContactListReader {
  private readonly ses: SesCalls;

  constructor(options: SesOptions) {
    this.ses = sesClient(options);
  }

  async *optedIn(listName: string): AsyncIterable<string[]> {
    let token: string | undefined;
    do {
      let page: ListContactsCommandOutput;
      try {
        page = await this.ses.send<ListContactsCommandOutput>(
          (sdk) =>
            new sdk.ListContactsCommand({
              ContactListName: listName,
              Filter: { FilteredStatus: "OPT_IN" },
              PageSize: 1000,
              NextToken: token,
            }),
        );
      } catch (error) {
        const name = error instanceof Error ? error.name : "Error";
        // No list yet: nobody has confirmed a subscription.
        if (name === "NotFoundException") return;
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata
          ?.httpStatusCode;
        throw new MailDeliveryError(`contact list refused the request (${name})`, status);
      }
      const addresses = (page.Contacts ?? [])
        .filter((contact) => !contact.UnsubscribeAll && contact.EmailAddress)
        .map((contact) => contact.EmailAddress!);
      if (addresses.length > 0) yield addresses;
      token = page.NextToken;
    } while (token);
  }
}

export function openContactListReader(
  config: Parameters<typeof contactListsOptions>[0],
): ContactListReader | null {
  const options = contactListsOptions(config);
  return options ? new SesContactListReader(options) : null;
}
