/**
 * A migrated, empty PGlite folder made once and copied into every new PGlite folder. PGlite
 * runs `initdb` on an empty folder: 6-14 s and about 1 GiB of memory on a 2-core machine, most
 * of the first `npm start`. Copying its result (about 40 MB of files, no rows of anyone's) takes
 * well under a second and leaves the process at the memory of an existing folder.
 *
 * `npm ci` makes it (the `postinstall` script runs this file); a start that finds none for its
 * PGlite version and migrations makes it then, once. The folder's name holds the PGlite version
 * and a hash of the migrations, so a snapshot made before a migration changed is never copied:
 * the next start makes a new one and removes the old.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { cp } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { log } from "../log.ts";
import { MIGRATIONS_FOLDER } from "./migrate.ts";

/** Beside the installed packages: made by `npm ci`, gone with `node_modules`. */
export const SNAPSHOT_ROOT = fileURLToPath(
  new URL("../../../node_modules/.cache/newsroom-pglite", import.meta.url),
);

function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  // dist/index.js: the package's own package.json is one folder up from dist.
  const manifest = join(dirname(entry), "..", "package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

/** What the migrator reads: the journal and every SQL file, in name order. */
export function migrationsHash(folder = MIGRATIONS_FOLDER): string {
  const hash = createHash("sha256");
  const files = [
    "meta/_journal.json",
    ...readdirSync(folder)
      .filter((name) => name.endsWith(".sql"))
      .sort(),
  ];
  for (const name of files) {
    hash.update(`${name}\0`);
    hash.update(readFileSync(join(folder, name)));
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

/** The snapshot folder for this PGlite version and these migrations. */
export function snapshotFolder(root = SNAPSHOT_ROOT): string {
  return join(root, `pglite-${pgliteVersion()}-${migrationsHash()}`);
}

/**
 * Makes the snapshot unless it exists: `initdb` and the migrations in a folder of its own,
 * renamed into place when PGlite has closed it, so a half-made one is never seen. Older
 * snapshots (another PGlite version or other migrations) are removed.
 */
export async function buildSnapshot(root = SNAPSHOT_ROOT): Promise<string> {
  const target = snapshotFolder(root);
  if (existsSync(target)) return target;
  mkdirSync(root, { recursive: true });
  const building = join(root, `.building-${process.pid}-${Date.now()}`);
  try {
    const client = new PGlite(building);
    await client.waitReady;
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
    await client.close();
    // PGlite's own marker of a running server: the copy is a stopped one.
    rmSync(join(building, "postmaster.pid"), { force: true });
    try {
      renameSync(building, target);
    } catch (error) {
      // Another process made the same snapshot meanwhile: theirs is as good.
      if (!existsSync(target)) throw error;
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  for (const name of readdirSync(root)) {
    if (name.startsWith("pglite-") && join(root, name) !== target) {
      rmSync(join(root, name), { recursive: true, force: true });
    }
  }
  return target;
}

/**
 * Fills a new, empty PGlite folder from the snapshot (made first when missing). Does nothing to
 * a folder that holds anything. When the snapshot cannot be made or copied (a read-only
 * install, say), the folder is left empty and PGlite runs `initdb` in it as it would anyway.
 */
export async function fillFromSnapshot(dir: string, root = SNAPSHOT_ROOT): Promise<boolean> {
  if (readdirSync(dir).length > 0) return false;
  try {
    const snapshot = existsSync(snapshotFolder(root))
      ? snapshotFolder(root)
      : await makeSnapshotNow(root);
    // Asynchronous: the rest of the start (the email emulator, say) goes on meanwhile.
    await cp(snapshot, dir, { recursive: true });
    return true;
  } catch (error) {
    log.warn("no PGlite snapshot: the new database folder is made from scratch", {
      error: error instanceof Error ? error.message : String(error),
    });
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    return false;
  }
}

async function makeSnapshotNow(root: string): Promise<string> {
  log.info("making the PGlite snapshot for these migrations (once, about 10 s)");
  return buildSnapshot(root);
}

if (import.meta.main) {
  // `npm ci` (postinstall): a failure here must not fail the install; the first start makes it.
  const started = performance.now();
  try {
    const folder = await buildSnapshot();
    console.log(
      `PGlite snapshot ready in ${((performance.now() - started) / 1000).toFixed(1)} s: ${folder}`,
    );
  } catch (error) {
    console.warn(
      `PGlite snapshot not made (the first npm start will make it): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
