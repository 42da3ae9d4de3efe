import { copyFile, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { START_BUDGET_MS } from "@newsroom/shared/testing/budget";
import { freePort } from "@newsroom/shared/testing/ports";
import type { Subprocess } from "bun";

/** Debian's `wordpress` package: the code this harness serves, never modified. */
const WORDPRESS_CODE = process.env.WORDPRESS_DIR ?? "/usr/share/wordpress";
/** The MariaDB the site keeps its tables in (root, empty password). */
const MARIADB_HOST = process.env.WORDPRESS_DB_HOST ?? "127.0.0.1";
const MARIADB_PORT = Number(process.env.WORDPRESS_DB_PORT ?? 3306);

export interface WordPressSite {
  /** The site's address, `http://127.0.0.1:<port>`. */
  url: string;
  /** An administrator and their application password. */
  admin: { username: string; applicationPassword: string };
  /** A subscriber (no `publish_posts`) and their application password. */
  subscriber: { username: string; applicationPassword: string };
  /** A REST call as the administrator (`path` after `/wp/v2`), answering the parsed JSON. */
  rest<T = unknown>(path: string, init?: RequestInit): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

const php = String.raw;

/**
 * A real WordPress of its own, for one test file: a fresh MariaDB database, a document root in a
 * temporary directory (the top-level PHP files copied, so that `ABSPATH` is this directory and
 * its own wp-config.php is read; wp-admin and wp-includes linked to Debian's copy; a writable
 * wp-content for uploads), installed with `wp_install()` from PHP, an application password made
 * for an administrator and for a subscriber, and `php -S` serving it on 127.0.0.1.
 * `WP_ENVIRONMENT_TYPE` is `local`, so that application passwords work without HTTPS.
 */
export async function startWordPress(): Promise<WordPressSite> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const root = await mkdtemp(join(tmpdir(), "wordpress-"));
  const database = `wp_test_${Math.random().toString(36).slice(2, 10)}`;
  for (const entry of await readdir(WORDPRESS_CODE)) {
    if (entry.endsWith(".php") && entry !== "wp-config.php") {
      await copyFile(join(WORDPRESS_CODE, entry), join(root, entry));
    }
  }
  await symlink(join(WORDPRESS_CODE, "wp-admin"), join(root, "wp-admin"));
  await symlink(join(WORDPRESS_CODE, "wp-includes"), join(root, "wp-includes"));
  await mkdir(join(root, "wp-content", "uploads"), { recursive: true });
  for (const dir of ["themes", "plugins", "languages"]) {
    await symlink(join(WORDPRESS_CODE, "wp-content", dir), join(root, "wp-content", dir));
  }
  const salt = () => crypto.randomUUID();
  await writeFile(
    join(root, "wp-config.php"),
    php`<?php
define('DB_NAME', '${database}');
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', '${MARIADB_HOST}:${MARIADB_PORT}');
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
$table_prefix = 'wp_';
define('WP_ENVIRONMENT_TYPE', 'local');
define('WP_HOME', '${url}');
define('WP_SITEURL', '${url}');
define('WP_CONTENT_DIR', __DIR__ . '/wp-content');
define('WP_CONTENT_URL', '${url}/wp-content');
define('DISABLE_WP_CRON', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTH_KEY', '${salt()}');
define('SECURE_AUTH_KEY', '${salt()}');
define('LOGGED_IN_KEY', '${salt()}');
define('NONCE_KEY', '${salt()}');
define('AUTH_SALT', '${salt()}');
define('SECURE_AUTH_SALT', '${salt()}');
define('LOGGED_IN_SALT', '${salt()}');
define('NONCE_SALT', '${salt()}');
if (!defined('ABSPATH')) define('ABSPATH', __DIR__ . '/');
require_once ABSPATH . 'wp-settings.php';
`,
  );
  // Every request that is not a file goes to WordPress's front controller.
  await writeFile(
    join(root, "router.php"),
    php`<?php
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
if ($path !== '/' && is_file(__DIR__ . $path)) return false;
require __DIR__ . '/index.php';
`,
  );
  await writeFile(
    join(root, "install.php"),
    php`<?php
$db = new mysqli('${MARIADB_HOST}', 'root', '', null, ${MARIADB_PORT});
$db->query('CREATE DATABASE ${database} CHARACTER SET utf8mb4');
define('WP_INSTALLING', true);
$_SERVER['HTTP_HOST'] = '127.0.0.1:${port}';
$_SERVER['REQUEST_URI'] = '/';
function wp_new_blog_notification() {}
require __DIR__ . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
wp_install('Client site', 'editor', 'editor@example.com', true, '', wp_generate_password(24));
$admin = get_user_by('login', 'editor');
$adminPassword = WP_Application_Passwords::create_new_application_password($admin->ID, array('name' => 'newsroom'));
$reader = wp_create_user('reader', wp_generate_password(24), 'reader@example.com');
$readerPassword = WP_Application_Passwords::create_new_application_password($reader, array('name' => 'newsroom'));
echo json_encode(array('admin' => $adminPassword[0], 'reader' => $readerPassword[0]));
`,
  );
  const install = Bun.spawnSync(["php", join(root, "install.php")], { cwd: root });
  const installed = install.stdout.toString();
  const match = installed.match(/\{"admin".*\}/);
  if (install.exitCode !== 0 || !match) {
    throw new Error(
      `installing WordPress failed (${install.exitCode}): ${installed}${install.stderr.toString()}`,
    );
  }
  const passwords = JSON.parse(match[0]) as { admin: string; reader: string };
  const server: Subprocess = Bun.spawn(
    ["php", "-S", `127.0.0.1:${port}`, "-t", root, join(root, "router.php")],
    { cwd: root, stdout: "ignore", stderr: "ignore" },
  );
  const admin = { username: "editor", applicationPassword: passwords.admin };
  const authorization = `Basic ${btoa(`${admin.username}:${admin.applicationPassword}`)}`;
  const rest = async <T>(path: string, init: RequestInit = {}) => {
    const [route, query] = path.split("?");
    const response = await fetch(`${url}/?rest_route=/wp/v2${route}${query ? `&${query}` : ""}`, {
      ...init,
      headers: { authorization, ...(init.headers as Record<string, string>) },
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  const deadline = Date.now() + START_BUDGET_MS;
  for (;;) {
    try {
      const answer = await fetch(`${url}/?rest_route=/`);
      if (answer.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error("WordPress did not start");
    await Bun.sleep(100);
  }
  return {
    url,
    admin,
    subscriber: { username: "reader", applicationPassword: passwords.reader },
    rest,
    stop: async () => {
      server.kill();
      await server.exited;
      Bun.spawnSync([
        "php",
        "-r",
        `$db = new mysqli('${MARIADB_HOST}', 'root', '', null, ${MARIADB_PORT}); $db->query('DROP DATABASE IF EXISTS ${database}');`,
      ]);
      await rm(root, { recursive: true, force: true });
    },
  };
}
