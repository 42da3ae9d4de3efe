import type postgres from "postgres";

/** A transaction kept open, its locks held, until `release`; `done` settles with its commit. */
export interface HeldTransaction {
  release: () => void;
  done: Promise<unknown>;
}

/**
 * Runs `statement` in a transaction of `client` and keeps the transaction open until released:
 * another writer's locks, held at a chosen moment. Resolves once the statement has run.
 */
export async function holdTransaction(
  client: postgres.Sql,
  statement: (tx: postgres.TransactionSql) => Promise<unknown>,
): Promise<HeldTransaction> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let ran!: () => void;
  const hasRun = new Promise<void>((resolve) => {
    ran = resolve;
  });
  const done = client.begin(async (tx) => {
    await statement(tx);
    ran();
    await released;
  });
  // A statement that fails ends the transaction: its error is this call's.
  await Promise.race([hasRun, done]);
  return { release, done };
}
