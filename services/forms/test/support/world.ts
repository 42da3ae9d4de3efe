import { afterAll, beforeAll } from "bun:test";
import type { EventBus } from "@newsroom/shared/bus/index";
import { type ContactsServer, startContactsServer } from "./contacts-server.ts";
import { type NewsletterOrg, newsletterOrg } from "./fixtures.ts";
import { type FormsHarness, formsHarness, type SesEmulator, startSesEmulator } from "./harness.ts";

export interface FormsWorld {
  ses: SesEmulator;
  forms: FormsHarness;
  /** The SES v2 contact-lists stand-in (only with `contacts: true`). */
  contacts: ContactsServer;
  /** An organization whose newsletter is on (only with `org`). */
  org: NewsletterOrg;
  /** The service listening on a 127.0.0.1 port, for a browser or fetch (only with `serve`). */
  server: { url: string };
}

export interface FormsWorldOptions {
  /** More environment for the forms service. */
  env?: Record<string, string | undefined>;
  /** Start the contact-lists stand-in and point SES_CONTACTS_ENDPOINT at it. */
  contacts?: boolean;
  /** Create one organization with its newsletter on, with these options. */
  org?: Parameters<typeof newsletterOrg>[1];
  /** Listen on a free 127.0.0.1 port (through the same edge as `forms.handle`). */
  serve?: boolean;
  /** Consume from this bus (made before the service starts, closed after it stops). */
  bus?: () => Promise<{ bus: EventBus; close(): Promise<void> }>;
}

/**
 * The setup of a forms test file: the SES v2 emulator and a forms service on its own test
 * database, started before the file's first test and closed after its last. Call it once at the
 * top of the file and destructure it there: its objects are empty until `beforeAll` fills them in
 * place, so read them only inside hooks and tests.
 */
export function formsWorld(options: FormsWorldOptions = {}): FormsWorld {
  const world = {
    ses: {} as SesEmulator,
    forms: {} as FormsHarness,
    contacts: {} as ContactsServer,
    org: {} as NewsletterOrg,
    server: {} as { url: string },
  };
  let stop = async () => {};
  beforeAll(async () => {
    const ses = await startSesEmulator();
    const contacts = options.contacts ? startContactsServer() : undefined;
    const bus = await options.bus?.();
    const forms = await formsHarness(
      {
        SES_ENDPOINT: ses.url,
        ...(contacts ? { SES_CONTACTS_ENDPOINT: contacts.url } : {}),
        ...options.env,
      },
      undefined,
      bus?.bus,
    );
    const server = options.serve
      ? Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => forms.handle(request) })
      : undefined;
    stop = async () => {
      server?.stop(true);
      await forms.close();
      await bus?.close();
      contacts?.close();
      await ses.close();
    };
    Object.assign(world.ses, ses);
    Object.assign(world.forms, forms);
    if (contacts) Object.assign(world.contacts, contacts);
    if (server) world.server.url = `http://127.0.0.1:${server.port}`;
    if (options.org) Object.assign(world.org, await newsletterOrg(forms.database.db, options.org));
  });
  afterAll(() => stop());
  return world;
}
