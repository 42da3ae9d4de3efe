/**
 * A small 127.0.0.1 HTTP server that answers like SES v2's contact-list API for the calls the
 * service makes: CreateContactList, CreateContact, UpdateContact and ListContacts (paged), with
 * SES's error types (`x-amzn-errortype`), and SendEmail, which it records (the local SES
 * emulator has no contact lists and ignores list management). The real SDK talks to it. It keeps
 * lists and contacts in memory and records every request.
 */
export interface ContactsServer {
  url: string;
  /** Contacts of a list: address -> opted out of everything. */
  list(name: string): Map<string, boolean> | undefined;
  lists(): string[];
  requests: { method: string; path: string; signed: boolean; body: unknown }[];
  /** Answer every CreateContact with this status (0 to stop refusing). */
  refuseContacts(status: number): void;
  /** At most this many lists, like the SES quota (one list per account). */
  limitLists(count: number): void;
  /** Puts a contact on a list (created when missing), as a confirmation through SES would. */
  seed(list: string, email: string, unsubscribed?: boolean): void;
  /** The SendEmail requests it answered, as the SDK sent them. */
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are read loosely in assertions
  sent: any[];
  close(): void;
}

const error = (status: number, type: string, message: string) =>
  Response.json({ message }, { status, headers: { "x-amzn-errortype": type } });

export function startContactsServer(): ContactsServer {
  const lists = new Map<string, { description?: string; contacts: Map<string, boolean> }>();
  const requests: ContactsServer["requests"] = [];
  let refuse = 0;
  let maxLists = Number.POSITIVE_INFINITY;
  const sent: ContactsServer["sent"] = [];

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const path = new URL(request.url).pathname;
      const text = await request.text();
      const body = text ? JSON.parse(text) : {};
      const signed = (request.headers.get("authorization") ?? "").startsWith("AWS4-HMAC-SHA256");
      requests.push({ method: request.method, path, signed, body });
      if (!signed) return error(403, "AccessDeniedException", "missing signature");

      if (request.method === "POST" && path === "/v2/email/contact-lists") {
        const name = body.ContactListName as string;
        if (lists.has(name)) return error(400, "AlreadyExistsException", "list exists");
        if (lists.size >= maxLists) return error(400, "LimitExceededException", "too many lists");
        lists.set(name, { description: body.Description, contacts: new Map() });
        return Response.json({});
      }
      if (request.method === "POST" && path === "/v2/email/outbound-emails") {
        sent.push(body);
        return Response.json({ MessageId: `local-${sent.length}` });
      }
      const listing = /^\/v2\/email\/contact-lists\/([^/]+)\/contacts\/list$/.exec(path);
      if (request.method === "POST" && listing) {
        const list = lists.get(decodeURIComponent(listing[1]!));
        if (!list) return error(404, "NotFoundException", "no such list");
        const optIn = body.Filter?.FilteredStatus === "OPT_IN";
        const all = [...list.contacts].filter(([, unsubscribed]) => !(optIn && unsubscribed));
        const from = Number(body.NextToken ?? 0);
        const size = body.PageSize ?? 1000;
        const page = all.slice(from, from + size);
        return Response.json({
          Contacts: page.map(([email, unsubscribed]) => ({
            EmailAddress: email,
            UnsubscribeAll: unsubscribed,
          })),
          ...(from + size < all.length ? { NextToken: String(from + size) } : {}),
        });
      }
      const contacts = /^\/v2\/email\/contact-lists\/([^/]+)\/contacts$/.exec(path);
      if (request.method === "POST" && contacts) {
        if (refuse) return error(refuse, "TooManyRequestsException", "refused by the test");
        const list = lists.get(decodeURIComponent(contacts[1]!));
        if (!list) return error(404, "NotFoundException", "no such list");
        const email = body.EmailAddress as string;
        if (list.contacts.has(email)) return error(400, "AlreadyExistsException", "contact exists");
        list.contacts.set(email, body.UnsubscribeAll === true);
        return Response.json({});
      }
      const contact = /^\/v2\/email\/contact-lists\/([^/]+)\/contacts\/([^/]+)$/.exec(path);
      if (request.method === "PUT" && contact) {
        const list = lists.get(decodeURIComponent(contact[1]!));
        const email = decodeURIComponent(contact[2]!);
        if (!list?.contacts.has(email)) return error(404, "NotFoundException", "no such contact");
        list.contacts.set(email, body.UnsubscribeAll === true);
        return Response.json({});
      }
      return error(404, "UnknownOperationException", `${request.method} ${path}`);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    list: (name) => lists.get(name)?.contacts,
    lists: () => [...lists.keys()],
    requests,
    refuseContacts(status) {
      refuse = status;
    },
    limitLists(count) {
      maxLists = count;
    },
    seed(name, email, unsubscribed = false) {
      if (!lists.has(name)) lists.set(name, { contacts: new Map() });
      lists.get(name)!.contacts.set(email, unsubscribed);
    },
    sent,
    close: () => server.stop(true),
  };
}
