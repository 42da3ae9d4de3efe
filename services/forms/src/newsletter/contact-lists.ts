import type { Config } from "@newsroom/shared/config";
import { contactListsOptions } from "@newsroom/shared/contact-lists";
import {
  MailDeliveryError,
  type SesCalls,
  type SesOptions,
  sesClient,
} from "@newsroom/shared/mailer";

/** Where an organization's confirmed subscribers go: its contact list in SES v2. */
export interface ContactLists {
  /**
   * Puts the address on the list (created when missing), opted in. Idempotent: an address
   * already there is opted in again. Throws `MailDeliveryError` when the provider refuses.
   */
  addContact(list: { name: string; description: string }, email: string): Promise<void>;
}

export { contactListOf } from "@newsroom/shared/contact-lists";

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
