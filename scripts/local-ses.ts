/**
 * The local SES v2 emulator (`aws-ses-v2-local`) on 127.0.0.1: the email of `npm start` and of
 * `npm run start:cluster -- --demo`. Its root page lists the mail it received; `/store` is JSON.
 */
import { checkPortFree } from "@newsroom/shared/startup";

export interface LocalSes {
  endpoint: string;
  close(): void;
}

/** Where the emulator on this port answers (known before it listens). */
export function localSesEndpoint(port: number): string {
  return `http://127.0.0.1:${port}`;
}

/**
 * Starts the emulator on SES_LOCAL_PORT. A taken port throws at once, naming the variable,
 * before anything else starts; the emulator's modules (about half a second to load) are read
 * only then, so `npm start` loads them while the database opens.
 */
export function startLocalSes(port: number): Promise<LocalSes> {
  // The emulator does not report a port in use: ask first.
  checkPortFree("SES_LOCAL_PORT", port, "127.0.0.1");
  return (async () => {
    const { default: startSesEmulator } = await import("aws-ses-v2-local");
    const server = await startSesEmulator({ host: "127.0.0.1", port });
    return { endpoint: localSesEndpoint(port), close: () => server.close() };
  })();
}

/** What email needs when it goes to the emulator: the senders forms use. */
export const LOCAL_EMAIL = {
  FORMS_FROM_EMAIL: "newsroom@localhost.example",
  FORMS_TEAM_EMAIL: "team@localhost.example",
};
