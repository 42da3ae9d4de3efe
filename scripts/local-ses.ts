/**
 * The local SES v2 emulator (`aws-ses-v2-local`) on 127.0.0.1: the email of `npm start` and of
 * `npm run start:cluster -- --demo`. Its root page lists the mail it received; `/store` is JSON.
 */
import { checkPortFree } from "@newsroom/shared/startup";
import startSesEmulator from "aws-ses-v2-local";

export interface LocalSes {
  endpoint: string;
  close(): void;
}

/** Starts the emulator on SES_LOCAL_PORT, or stops start-up naming the variable when taken. */
export async function startLocalSes(port: number): Promise<LocalSes> {
  // The emulator does not report a port in use: ask first.
  checkPortFree("SES_LOCAL_PORT", port, "127.0.0.1");
  const server = await startSesEmulator({ host: "127.0.0.1", port });
  return { endpoint: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/** What email needs when it goes to the emulator: the senders forms use. */
export const LOCAL_EMAIL = {
  FORMS_FROM_EMAIL: "newsroom@localhost.example",
  FORMS_TEAM_EMAIL: "team@localhost.example",
};
