import { createHash } from "node:crypto";
import { SignJWT } from "jose";
import {
  type CmsCheck,
  CmsConflict,
  type CmsConnector,
  type CmsImage,
  type CmsPost,
  CmsRefused,
  type RemoteImage,
  type RemotePost,
  type UnpublishMode,
} from "../connector.ts";
import { ghostHtml } from "./body.ts";

/** How the connector reaches the network; the writer passes one that applies its target rules. */
export type GhostFetch = (url: string, init: RequestInit) => Promise<Response>;

export interface GhostConnectorOptions {
  /** The "API URL" of the custom integration in Ghost Admin: the site's admin address. */
  url: string;
  /** The integration's Admin API key, `{id}:{secret in hex}`. */
  adminApiKey: string;
  fetch?: GhostFetch;
  /** Per request; a request slower than this counts as the site being unreachable. */
  timeoutMs?: number;
}

/** The Admin API version the requests are written against (`Accept-Version`). */
export const GHOST_ACCEPT_VERSION = "v5.0";
/** Ghost refuses a token issued more than five minutes ago; the connector signs one per request. */
const TOKEN_LIFETIME_SECONDS = 5 * 60;
/** Ghost's column limits: a longer value is refused with a 422 rather than cut. */
const TITLE_MAX = 255;
const EXCERPT_MAX = 300;
const SLUG_MAX = 185;
/** Roles whose staff tokens may publish and create tags (an Author may not create tags). */
const WRITING_ROLES = new Set(["Owner", "Administrator", "Editor", "Super Editor"]);

/**
 * An Admin API key split into what signs the token: the key's id (the token's `kid`) and its
 * secret as bytes. Ghost makes ids of 24 hex digits and secrets of 64; `null` for anything else.
 */
export function parseAdminApiKey(key: string): { id: string; secret: Uint8Array } | null {
  const match = /^([0-9a-f]{24}):([0-9a-f]{64})$/i.exec(key.trim());
  if (!match) return null;
  return { id: match[1]!, secret: Uint8Array.from(Buffer.from(match[2]!, "hex")) };
}

/**
 * The post's stable marker as the slug of an internal tag (`#newsroom-...`, slug
 * `hash-newsroom-...`), which the Admin API filters by (`filter=tag:hash-newsroom-...`).
 *
 * Why a tag rather than the slug: editors change slugs in Ghost (and Ghost itself appends `-2`
 * when one is taken), while internal tags are hidden from readers and themes, shown in the editor
 * only in the tag field, and survive edits to the title, slug, body and status. A slug marker
 * would be lost the first time someone tidied a URL; the tag is lost only if someone removes it.
 */
export function markerTagSlug(marker: string): string {
  return `hash-newsroom-${markerWord(marker)}`;
}

/**
 * The marker as it can stand in a tag slug and a filter: as it is when it is already lower-case
 * letters, digits and dashes (ids are), else a digest of it, so two markers never share a slug.
 */
function markerWord(marker: string): string {
  if (/^[a-z0-9]+(-[a-z0-9]+)*$/.test(marker) && marker.length <= 150) return marker;
  return createHash("sha256").update(marker).digest("hex").slice(0, 40);
}

interface GhostPostOut {
  id: string;
  updated_at: string | null;
  url?: string | null;
}

interface Answer {
  status: number;
  body: unknown;
  /** Ghost's own words for a failure (`errors[0].message`), cut short; never a credential. */
  ghostMessage: string;
}

/** The request never got an answer: refused connection, DNS failure, TLS failure, timeout. */
class GhostUnreachable extends Error {}

/**
 * A `CmsConnector` for the Ghost Admin API (https://ghost.org/docs/admin-api/): token
 * authentication with an integration's Admin API key, posts written from HTML
 * (`?source=html`), images into the media library, conflicts detected through `updated_at`.
 */
export class GhostConnector implements CmsConnector {
  private readonly base: string;
  private readonly key: ReturnType<typeof parseAdminApiKey>;
  private readonly send: GhostFetch;
  private readonly timeoutMs: number;

  constructor(options: GhostConnectorOptions) {
    this.base = adminApiBase(options.url);
    this.key = parseAdminApiKey(options.adminApiKey);
    this.send = options.fetch ?? ((url, init) => fetch(url, init));
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  /**
   * Reachable and a Ghost (`site/`, which needs no token), the key accepted (a posts read), and
   * allowed to publish: an integration's key always is; a staff user's token only for an Owner,
   * Administrator or Editor (`users/me/`, which answers only for staff tokens).
   */
  async check(): Promise<CmsCheck> {
    if (!this.key) {
      return {
        ok: false,
        problem: "refused_credentials",
        message:
          "The Admin API key is not in Ghost's form (an id, a colon, then the secret in hex): copy it again from the integration's page in Ghost Admin.",
      };
    }
    try {
      const site = await this.request("GET", "site/", { authenticated: false });
      if (site.status !== 200 || !isObject(site.body) || !isObject(site.body.site)) {
        return {
          ok: false,
          problem: "unexpected_answer",
          message: `${this.base} answers (HTTP ${site.status}), but not as a Ghost site's Admin API does: check the Admin API URL on the integration's page in Ghost Admin.`,
        };
      }
      const posts = await this.request("GET", "posts/", { query: { limit: "1", fields: "id" } });
      if (posts.status === 401 || posts.status === 400) {
        return {
          ok: false,
          problem: "refused_credentials",
          message: `Ghost refused the Admin API key (${posts.ghostMessage}): copy the key again from the integration's page in Ghost Admin, or check that the integration still exists.`,
        };
      }
      if (posts.status === 403) return missingCapability(posts.ghostMessage);
      if (posts.status !== 200) return unexpected(posts, "listed posts");
      const me = await this.request("GET", "users/me/", { query: { include: "roles" } });
      if (me.status === 200) {
        const role = roleOf(me.body);
        if (!role || !WRITING_ROLES.has(role)) {
          return missingCapability(
            `the key belongs to a staff user whose role is ${role ?? "unknown"}; publishing posts with their tags needs an Editor or Administrator`,
          );
        }
      } else if (me.status < 400 || me.status >= 500 || me.status === 401) {
        // An integration's key has no user: Ghost answers `users/me/` with a 404 or a 403 (or
        // refuses the id), which says the key is an integration's, whose role may publish.
        return unexpected(me, "said whose key this is");
      }
      return { ok: true };
    } catch (error) {
      if (error instanceof GhostUnreachable) {
        return { ok: false, problem: "unreachable", message: error.message };
      }
      if (error instanceof CmsRefused) {
        return { ok: false, problem: "unexpected_answer", message: error.message };
      }
      throw error;
    }
  }

  async findByMarker(marker: string): Promise<RemotePost | null> {
    const answer = await this.request("GET", "posts/", {
      query: {
        filter: `tag:${markerTagSlug(marker)}`,
        limit: "1",
        order: "created_at asc",
        fields: "id,updated_at,url",
      },
    });
    if (answer.status !== 200) throw failure(answer, "looking the post up by its marker");
    const post = firstPost(answer.body, true);
    return post ? remotePost(post) : null;
  }

  async create(post: CmsPost): Promise<RemotePost> {
    const answer = await this.request("POST", "posts/", {
      query: { source: "html" },
      json: { posts: [ghostPost(post)] },
    });
    if (answer.status !== 201 && answer.status !== 200) throw failure(answer, "creating the post");
    return remotePost(firstPost(answer.body));
  }

  /**
   * Sends the `updated_at` the writer last saw: Ghost refuses the save with a 409
   * `UpdateCollisionError` when the post changed since, and this throws `CmsConflict`. Without
   * a recorded stamp the post's current one is read first (nothing to compare against).
   */
  async update(remote: RemotePost, post: CmsPost): Promise<RemotePost> {
    const updatedAt = remote.updatedAt ?? (await this.current(remote.id))?.updated_at;
    if (!updatedAt)
      throw new CmsRefused("The post is no longer in Ghost: someone deleted it there.");
    const answer = await this.request("PUT", `posts/${encodeURIComponent(remote.id)}/`, {
      query: { source: "html" },
      json: { posts: [{ ...ghostPost(post), updated_at: updatedAt }] },
    });
    if (answer.status === 409) {
      throw new CmsConflict(
        "The post was changed in Ghost since it was last written from here: Ghost refused to overwrite it.",
      );
    }
    if (answer.status === 404) {
      throw new CmsRefused("The post is no longer in Ghost: someone deleted it there.");
    }
    if (answer.status !== 200) throw failure(answer, "updating the post");
    return remotePost(firstPost(answer.body));
  }

  /**
   * `draft`: the post goes back to a draft in Ghost, its text kept for the editors. Taking a
   * story down wins over edits made in Ghost meanwhile, so the current `updated_at` is read and
   * sent (once more if an edit lands between the read and the save).
   *
   * `trash`: Ghost has no trash and no way back: deleting a post removes it for good (Ghost Admin
   * asks "Are you sure you want to delete this post?" for the same reason). Whoever chose "trash"
   * for a Ghost connection chose deletion; the story stays in the newsroom, so writing it again
   * makes a new post.
   *
   * A post already gone from Ghost counts as taken down.
   */
  async unpublish(remote: RemotePost, mode: UnpublishMode): Promise<void> {
    const path = `posts/${encodeURIComponent(remote.id)}/`;
    if (mode === "trash") {
      const answer = await this.request("DELETE", path);
      if (answer.status === 204 || answer.status === 200 || answer.status === 404) return;
      throw failure(answer, "deleting the post");
    }
    for (let attempt = 0; attempt < 2; attempt++) {
      const current = await this.current(remote.id);
      if (!current) return;
      const answer = await this.request("PUT", path, {
        json: { posts: [{ status: "draft", updated_at: current.updated_at }] },
      });
      if (answer.status === 200 || answer.status === 404) return;
      if (answer.status !== 409) throw failure(answer, "turning the post back into a draft");
    }
    throw new Error("The post kept changing in Ghost while it was being turned back into a draft.");
  }

  /**
   * One upload into Ghost's media library. Ghost keeps no id for an image: its URL is what a post
   * names it by, so the URL is the id too. `ref` carries the asset id for Ghost's own records.
   */
  async uploadImage(image: CmsImage): Promise<RemoteImage> {
    const form = new FormData();
    form.append(
      "file",
      new Blob([image.bytes as Uint8Array<ArrayBuffer>], { type: image.contentType }),
      image.filename,
    );
    form.append("purpose", "image");
    form.append("ref", image.assetId);
    const answer = await this.request("POST", "images/upload/", { form });
    if (answer.status !== 201 && answer.status !== 200) throw failure(answer, "uploading an image");
    const uploaded =
      isObject(answer.body) && Array.isArray(answer.body.images) ? answer.body.images[0] : null;
    if (!isObject(uploaded) || typeof uploaded.url !== "string") {
      throw new Error("Ghost accepted the image but its answer named no URL for it.");
    }
    return { id: uploaded.url, url: uploaded.url };
  }

  /** The post's current id and `updated_at`, or `null` when it is no longer in Ghost. */
  private async current(id: string): Promise<GhostPostOut | null> {
    const answer = await this.request("GET", `posts/${encodeURIComponent(id)}/`, {
      query: { fields: "id,updated_at,url" },
    });
    if (answer.status === 404) return null;
    if (answer.status !== 200) throw failure(answer, "reading the post");
    return firstPost(answer.body);
  }

  private async request(
    method: string,
    path: string,
    options: {
      query?: Record<string, string>;
      json?: unknown;
      form?: FormData;
      authenticated?: boolean;
    } = {},
  ): Promise<Answer> {
    const url = new URL(`${this.base}/ghost/api/admin/${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      url.searchParams.set(name, value);
    }
    const headers: Record<string, string> = {
      accept: "application/json",
      "accept-version": GHOST_ACCEPT_VERSION,
    };
    if (options.authenticated !== false) headers.authorization = `Ghost ${await this.token()}`;
    let body: BodyInit | undefined;
    if (options.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.json);
    } else if (options.form) {
      body = options.form;
    }
    let response: Response;
    try {
      response = await this.send(url.toString(), {
        method,
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new GhostUnreachable(unreachableMessage(this.base, error, this.timeoutMs));
    }
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.get("location");
      throw new CmsRefused(
        `Ghost at ${this.base} answers with a redirect${location ? ` to ${originOf(location)}` : ""}: use the Admin API URL shown on the integration's page in Ghost Admin.`,
      );
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    const ghostError =
      isObject(parsed) && Array.isArray(parsed.errors) && isObject(parsed.errors[0])
        ? parsed.errors[0]
        : {};
    return {
      status: response.status,
      body: parsed,
      ghostMessage: String(ghostError.message ?? `HTTP ${response.status}`).slice(0, 200),
    };
  }

  /** A fresh token per request: HS256 with the key's secret, `kid` the key's id, `aud` /admin/. */
  private async token(): Promise<string> {
    if (!this.key) {
      throw new CmsRefused(
        "The Admin API key is not in Ghost's form (an id, a colon, then the secret in hex).",
      );
    }
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT", kid: this.key.id })
      .setIssuedAt(now)
      .setExpirationTime(now + TOKEN_LIFETIME_SECONDS)
      .setAudience("/admin/")
      .sign(this.key.secret);
  }
}

/**
 * The site's admin address without a trailing slash, nor the API path if it was pasted too, nor
 * any `user:password@` (the address shows in messages; Ghost takes no credentials there).
 */
function adminApiBase(url: string): string {
  return url
    .trim()
    .replace(/^(https?:\/\/)[^/@]*@/i, "$1")
    .replace(/\/+$/, "")
    .replace(/\/ghost(\/api(\/admin)?)?$/i, "");
}

/** The post as Ghost's Admin API takes it: published, with its topics and the marker tag. */
function ghostPost(post: CmsPost): Record<string, unknown> {
  const topics = [...new Set(post.topics.map((topic) => topic.replace(/^#+/, "").trim()))]
    .filter((topic) => topic !== "")
    .map((name) => ({ name: name.slice(0, 191) }));
  return {
    title: cut(post.title, TITLE_MAX),
    slug: post.slug.slice(0, SLUG_MAX),
    html: ghostHtml(post),
    status: "published",
    published_at: post.publishedAt,
    custom_excerpt: post.summary ? cut(post.summary, EXCERPT_MAX) : null,
    canonical_url: post.canonicalUrl,
    tags: [
      ...topics,
      { name: `#newsroom-${post.marker}`.slice(0, 191), slug: markerTagSlug(post.marker) },
    ],
  };
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

function remotePost(post: GhostPostOut): RemotePost {
  return { id: post.id, updatedAt: post.updated_at ?? null, url: post.url ?? null };
}

function firstPost(body: unknown): GhostPostOut;
function firstPost(body: unknown, optional: true): GhostPostOut | null;
function firstPost(body: unknown, optional = false): GhostPostOut | null {
  const post = isObject(body) && Array.isArray(body.posts) ? body.posts[0] : undefined;
  if (isObject(post) && typeof post.id === "string") {
    return {
      id: post.id,
      updated_at: typeof post.updated_at === "string" ? post.updated_at : null,
      url: typeof post.url === "string" ? post.url : null,
    };
  }
  if (optional && isObject(body) && Array.isArray(body.posts)) return null;
  throw new Error("Ghost answered without the post it was asked about.");
}

function roleOf(body: unknown): string | null {
  const user = isObject(body) && Array.isArray(body.users) ? body.users[0] : null;
  const role = isObject(user) && Array.isArray(user.roles) ? user.roles[0] : null;
  return isObject(role) && typeof role.name === "string" ? role.name : null;
}

/**
 * What a failed answer means for the writer: refusals that a retry will not change (the key,
 * the role, a value Ghost will not take) are `CmsRefused`; a busy or failing Ghost is a plain
 * error, tried again on the writer's schedule.
 */
function failure(answer: Answer, doing: string): Error {
  const words = `Ghost answered HTTP ${answer.status} when ${doing}: ${answer.ghostMessage}`;
  if (answer.status === 401 || answer.status === 400) {
    return new CmsRefused(
      `${words}. The Admin API key was refused: copy it again from Ghost Admin.`,
    );
  }
  if (answer.status === 403) {
    return new CmsRefused(
      `${words}. The key may not do this: use a custom integration's Admin API key.`,
    );
  }
  if ([413, 415, 422].includes(answer.status)) return new CmsRefused(`${words}.`);
  return new Error(`${words}.`);
}

function missingCapability(why: string): CmsCheck {
  return {
    ok: false,
    problem: "missing_capability",
    message: `Ghost accepted the key but it may not publish posts (${why}): use the Admin API key of a custom integration in Ghost Admin.`,
  };
}

function unexpected(answer: Answer, what: string): CmsCheck {
  return {
    ok: false,
    problem: "unexpected_answer",
    message: `Ghost answered HTTP ${answer.status} (${answer.ghostMessage}) where it should have ${what}.`,
  };
}

function unreachableMessage(base: string, error: unknown, timeoutMs: number): string {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") {
    return `${base} did not answer within ${Math.round(timeoutMs / 1000)} s.`;
  }
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  if (/refused/i.test(code)) return `Nothing answers at ${base}: the connection was refused.`;
  if (/ENOTFOUND|EAI_AGAIN|DNS/i.test(code)) return `The host of ${base} was not found.`;
  if (/CERT|TLS|SSL/i.test(code)) return `The TLS connection to ${base} failed (${code}).`;
  return `${base} could not be reached${code ? ` (${code})` : ""}.`;
}

function originOf(location: string): string {
  try {
    return new URL(location).origin;
  } catch {
    return "another address";
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
