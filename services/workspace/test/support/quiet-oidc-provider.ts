// The local OpenID provider is a test double: its notes on development keys, in-memory storage and
// the runtime are expected here and would only bury the test output. Imported before the provider,
// so the notes it prints as it loads are caught too.
for (const level of ["info", "warn"] as const) {
  const write = console[level];
  console[level] = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].includes("oidc-provider ")) return;
    write(...args);
  };
}
