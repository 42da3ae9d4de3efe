/**
 * The local SES v2 emulator as its own process, as the real SES is outside the service:
 * `bun scripts/ses-emulator.ts <port>`. It says `listening` on stdout once it answers, and exits
 * when its standard input closes, so it never outlives the start that spawned it.
 */
export {};

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error("usage: bun scripts/ses-emulator.ts <port>");
  process.exit(2);
}
const { default: startSesEmulator } = await import("aws-ses-v2-local");
await startSesEmulator({ host: "127.0.0.1", port });
console.log("listening");
// Nothing is ever sent: the stream ends when the parent goes.
const input = Bun.stdin.stream().getReader();
while (!(await input.read()).done) {}
process.exit(0);
