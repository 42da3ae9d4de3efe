import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import startSes from "aws-ses-v2-local";

/** One email as the SES v2 emulator stored it. */
export interface SesEmail {
  messageId: string;
  from: string;
  replyTo: string[];
  destination: { to: string[]; cc: string[]; bcc: string[] };
  subject: string;
  body: { text?: string; html?: string };
  headers?: { name: string; value: string }[];
  at: number;
}

/** The SES v2 emulator on a free 127.0.0.1 port; its inbox read over HTTP at /store. */
export interface SesEmulator {
  url: string;
  emails(): Promise<SesEmail[]>;
  /** Emails to one address (test addresses are unique, so files never see each other's). */
  to(address: string): Promise<SesEmail[]>;
  clear(): Promise<void>;
  close(): Promise<void>;
}

/** The emulator every service that sends email (forms, the workspace's sign-in codes) tests against. */
export async function startSesEmulator(): Promise<SesEmulator> {
  const server = await startSes({ host: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const emails = async () => {
    const response = await fetch(`${url}/store`);
    return ((await response.json()) as { emails: SesEmail[] }).emails;
  };
  return {
    url,
    emails,
    to: async (address) =>
      (await emails()).filter((email) =>
        email.destination.to.some((to) => to.toLowerCase() === address.toLowerCase()),
      ),
    clear: async () => {
      await fetch(`${url}/clear-store`, { method: "POST" });
    },
    close: () => closeServer(server),
  };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });
}
