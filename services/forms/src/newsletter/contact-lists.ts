import type { ListContactsCommandOutput } from "@aws-sdk/client-sesv2";
import type { Config } from "@newsroom/shared/config";
import {
  MailDeliveryError,
  type SesCalls,
  type SesOptions,
  sesClient,
} from "@newsroom/shared/mailer";

/**
 * Organization newsletters keep their confirmed subscribers in SES v2 contact lists, never in
 * the service's own database: a confirmation adds them, a newsletter send reads them.
 */
export interface ContactLists {
  /**
   * Puts the address on the list (created when missing), opted in. Idempotent: an address
   * already there is opted in again. Throws `MailDeliveryError` when the provider refuses.
   */
  addContact(list: { name: string; description: string }, email: string): Promise<void>;
  /** The list's subscribed (opted-in) addresses, page by page; none when there is no list. */
  optedIn(listName: string): AsyncIterable<string[]>;
}

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

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "Error";
}

function refused(error: unknown): MailDeliveryError {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return new MailDeliveryError(`contact list refused the request (${errorName(error)})`, status);
}

/** Amazon SES v2 contact lists through the SDK. */
export class SesContactLists implements ContactLists {
  private readonly ses: SesCalls;

  constructor(options: SesOptions) {
    this.ses = sesClient(options);
  }

  async addContact(list: { name: string; description: string }, email: string): Promise<void> {
    try {
      await this.createContact(list.name, email);
    } catch (error) {
      if (errorName(error) !== "NotFoundException") throw refused(error);
      await this.createList(list);
      try {
        await this.createContact(list.name, email);
      } catch (again) {
        throw refused(again);
      }
    }
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
        // No list yet: nobody has confirmed a subscription.
        if (errorName(error) === "NotFoundException") return;
        throw refused(error);
      }
      const addresses = (page.Contacts ?? [])
        .filter((contact) => !contact.UnsubscribeAll && contact.EmailAddress)
        .map((contact) => contact.EmailAddress!);
      if (addresses.length > 0) yield addresses;
      token = page.NextToken;
    } while (token);
  }
  /** Creates the contact, or opts an existing one in again (it may have unsubscribed before). */
  private async createContact(listName: string, email: string): Promise<void> {
    try {
      await this.ses.send(
        (sdk) =>
          new sdk.CreateContactCommand({
            ContactListName: listName,
            EmailAddress: email,
            UnsubscribeAll: false,
          }),
      );
    } catch (error) {
      if (errorName(error) !== "AlreadyExistsException") throw error;
      await this.ses.send(
        (sdk) =>
          new sdk.UpdateContactCommand({
            ContactListName: listName,
            EmailAddress: email,
            UnsubscribeAll: false,
          }),
      );
    }
  }

  private async createList(list: { name: string; description: string }): Promise<void> {
    try {
      await this.ses.send(
        (sdk) =>
          new sdk.CreateContactListCommand({
            ContactListName: list.name,
            Description: list.description,
          }),
      );
    } catch (error) {
      // Another request created it meanwhile: fine.
      if (errorName(error) !== "AlreadyExistsException") throw refused(error);
    }
  }
}

/** The contact lists the config describes; null when there are none (the local emulator). */
export function openContactLists(
  config: Pick<Config, "SES_CONTACTS_ENDPOINT" | "SES_ENDPOINT" | "SES_REGION" | "SES_TIMEOUT_MS">,
): ContactLists | null {
  const options = contactListsOptions(config);
  return options ? new SesContactLists(options) : null;
}
