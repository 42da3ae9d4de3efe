/**
 * A stand-in for Ghost's Admin API, for the connector's tests. It is a stand-in because Ghost 6
 * runs only on Node 22 and newer, which this project's machines do not have (and Ghost 5, which
 * runs on Node 20, does not install from the npm registry alone: its dependency tree fetches a
 * package from a Git host, and it wants MySQL 8 or a native SQLite build); it implements the
 * documented endpoints the connector calls (https://ghost.org/docs/admin-api/), as Ghost answers
 * them, and nothing else:
 *
 * - token authentication as Ghost checks it: `Authorization: Ghost <jwt>`, the `kid` naming a
 *   known key, an HS256 signature by the key's secret (hex-decoded), `aud` `/admin/`, issued no
 *   more than 5 minutes ago and expiring no later than 5 minutes after issue; refusals in
 *   Ghost's error shape (`{ errors: [{ message, type, code, ... }] }`, 401 UnauthorizedError,
 *   400 BadRequestError for a token that does not decode);
 * - `GET site/` (no token needed); `GET users/me/?include=roles` (a staff token's user; 404 for
 *   an integration's key);
 * - posts: browse with `filter=tag:<slug>`, `limit`, `fields`; read; add with `?source=html`;
 *   edit with the `updated_at` check (missing: 422 ValidationError; stale: 409
 *   UpdateCollisionError); delete (204);
 * - `POST images/upload/` (multipart `file`, `purpose`, `ref`), the image then served at its URL.
 *
 * `staffRole` turns the key into a staff user's token of that role; a Contributor may read posts
 * but not publish, edit or delete them (403 NoPermissionError), as in Ghost.
 */
import { decodeProtectedHeader, jwtVerify } from "jose";

export interface GhostPost {
  id: string;
  uuid: string;
  title: string;
  slug: string;
  html: string | null;
  status: string;
  published_at: string | null;
  custom_excerpt: string | null;
  canonical_url: string | null;
  tags: { id: string; name: string; slug: string; visibility: "public" | "internal" }[];
  created_at: string;
  updated_at: string;
  url: string;
}

export interface GhostRequest {
  method: string;
  path: string;
  search: URLSearchParams;
  headers: Headers;
}

const API = "/ghost/api/admin/";
const IMAGE_TYPES = new Set([
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
  "image/svg+xml",
  "image/x-icon",
]);

export function hexOf(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}

export function startGhostAdminServer() {
  const key = { id: hexOf(12), secret: hexOf(32) };
  const posts = new Map<string, GhostPost>();
  const tags = new Map<string, GhostPost["tags"][number]>();
  const images = new Map<
    string,
    { bytes: Uint8Array<ArrayBuffer>; contentType: string; ref: string | null }
  >();
  const requests: GhostRequest[] = [];
  let lastStamp = 0;
  const state = { staffRole: null as string | null };

  /** Ghost's `updated_at`: whole seconds, and never the same twice here. */
  const stamp = () => {
    lastStamp = Math.max(Math.floor(Date.now() / 1000) * 1000, lastStamp + 1000);
    return new Date(lastStamp).toISOString();
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    async fetch(request): Promise<Response> {
      const url = new URL(request.url);
      requests.push({
        method: request.method,
        path: url.pathname,
        search: url.searchParams,
        headers: request.headers,
      });
      if (request.method === "GET" && url.pathname.startsWith("/content/images/")) {
        const image = images.get(url.pathname);
        return image
          ? new Response(image.bytes, { headers: { "content-type": image.contentType } })
          : ghostError(404, "NotFoundError", "Resource not found");
      }
      if (!url.pathname.startsWith(API))
        return ghostError(404, "NotFoundError", "Resource not found");
      const route = url.pathname.slice(API.length);
      if (request.method === "GET" && route === "site/") {
        return json(200, {
          site: {
            title: "Stand-in Ghost",
            description: "Thoughts, stories and ideas.",
            logo: null,
            icon: null,
            accent_color: "#FF1A75",
            locale: "en",
            url: `${origin()}/`,
            version: "6.0",
          },
        });
      }
      const refused = await authenticate(request.headers.get("authorization"));
      if (refused) return refused;
      return route === "images/upload/" && request.method === "POST"
        ? upload(request)
        : routePosts(request, route, url.searchParams);
    },
  });

  const origin = (): string => `http://127.0.0.1:${server.port}`;

  async function authenticate(header: string | null): Promise<Response | null> {
    if (!header) {
      return ghostError(
        403,
        "NoPermissionError",
        "Authorization failed",
        "Unable to determine the authenticated user or integration.",
      );
    }
    const [scheme, token] = header.split(" ");
    if (!/^Ghost$/i.test(scheme ?? "") || !token) {
      return ghostError(
        401,
        "UnauthorizedError",
        'Authorization header format is "Authorization: Ghost [token]"',
        null,
        "INVALID_AUTH_HEADER",
      );
    }
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return ghostError(400, "BadRequestError", "Invalid token", null, "INVALID_JWT");
    }
    if (!kid)
      return ghostError(
        400,
        "BadRequestError",
        "Admin API kid missing.",
        null,
        "MISSING_ADMIN_API_KID",
      );
    if (kid !== key.id)
      return ghostError(
        401,
        "UnauthorizedError",
        "Unknown Admin API Key",
        null,
        "UNKNOWN_ADMIN_API_KEY",
      );
    try {
      const { payload } = await jwtVerify(token, Buffer.from(key.secret, "hex"), {
        algorithms: ["HS256"],
        maxTokenAge: "5m",
      });
      const audience = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      if (!audience.some((aud) => typeof aud === "string" && /^\/?admin\/?$/.test(aud))) {
        return ghostError(
          401,
          "UnauthorizedError",
          "Invalid token: jwt audience invalid. expected: /?admin/?$",
          null,
          "INVALID_JWT",
        );
      }
      if (
        typeof payload.exp !== "number" ||
        typeof payload.iat !== "number" ||
        payload.exp - payload.iat > 5 * 60
      ) {
        return ghostError(
          401,
          "UnauthorizedError",
          "Invalid token: the token must expire within 5 minutes of being issued",
          null,
          "INVALID_JWT",
        );
      }
    } catch (error) {
      return ghostError(
        401,
        "UnauthorizedError",
        `Invalid token: ${jsonwebtokenWords(error)}`,
        null,
        "INVALID_JWT",
      );
    }
    return null;
  }

  const mayWrite = () => state.staffRole === null || state.staffRole !== "Contributor";
  const noPermission = () =>
    ghostError(403, "NoPermissionError", "You do not have permission to perform this action");

  async function routePosts(
    request: Request,
    route: string,
    search: URLSearchParams,
  ): Promise<Response> {
    if (request.method === "GET" && route === "users/me/") {
      if (!state.staffRole) return ghostError(404, "NotFoundError", "User not found.");
      return json(200, {
        users: [
          {
            id: hexOf(12),
            name: "Staff user",
            slug: "staff-user",
            roles: [{ id: hexOf(12), name: state.staffRole }],
          },
        ],
      });
    }
    if (route === "posts/") {
      if (request.method === "GET") return browse(search);
      if (request.method === "POST") return add(await request.json(), search);
    }
    const one = /^posts\/([0-9a-f]{24})\/$/.exec(route);
    if (one) {
      const post = posts.get(one[1]!);
      if (!post) return ghostError(404, "NotFoundError", "Post not found.");
      if (request.method === "GET")
        return json(200, { posts: [project(post, search.get("fields"))] });
      if (request.method === "PUT") return edit(post, await request.json(), search);
      if (request.method === "DELETE") {
        if (!mayWrite()) return noPermission();
        posts.delete(post.id);
        return new Response(null, { status: 204 });
      }
    }
    return ghostError(404, "NotFoundError", "Resource not found");
  }

  function browse(search: URLSearchParams): Response {
    let found = [...posts.values()];
    const filter = search.get("filter");
    if (filter) {
      const tag = /^tag:([a-z0-9-]+)$/.exec(filter);
      if (!tag) return ghostError(400, "BadRequestError", "Error parsing filter");
      found = found.filter((post) => post.tags.some((each) => each.slug === tag[1]));
    }
    found.sort((a, b) => a.created_at.localeCompare(b.created_at));
    const limit = Number(search.get("limit") ?? 15);
    const page = found.slice(0, limit);
    return json(200, {
      posts: page.map((post) => project(post, search.get("fields"))),
      meta: {
        pagination: {
          page: 1,
          limit,
          pages: Math.ceil(found.length / limit),
          total: found.length,
          next: null,
          prev: null,
        },
      },
    });
  }

  function add(body: unknown, search: URLSearchParams): Response {
    const input = firstOf(body);
    if (!input || typeof input.title !== "string") {
      return ghostError(
        422,
        "ValidationError",
        "Validation error, cannot save post.",
        "Value in [posts.title] cannot be blank.",
      );
    }
    if ((input.status ?? "draft") !== "draft" && !mayWrite()) return noPermission();
    const now = stamp();
    const id = hexOf(12);
    const post: GhostPost = {
      id,
      uuid: crypto.randomUUID(),
      title: "",
      slug: "",
      html: null,
      status: "draft",
      published_at: null,
      custom_excerpt: null,
      canonical_url: null,
      tags: [],
      created_at: now,
      updated_at: now,
      url: "",
    };
    const invalid = apply(post, input, search);
    if (invalid) return invalid;
    posts.set(id, post);
    return json(201, { posts: [post] });
  }

  function edit(post: GhostPost, body: unknown, search: URLSearchParams): Response {
    if (!mayWrite()) return noPermission();
    const input = firstOf(body);
    if (!input || typeof input.updated_at !== "string") {
      return ghostError(
        422,
        "ValidationError",
        "Validation error, cannot edit post.",
        "Value in [posts.updated_at] is required.",
      );
    }
    if (new Date(input.updated_at).getTime() !== new Date(post.updated_at).getTime()) {
      return ghostError(
        409,
        "UpdateCollisionError",
        "Saving failed! Someone else is editing this post.",
        null,
        "UPDATE_COLLISION",
      );
    }
    const next = { ...post, tags: [...post.tags] };
    const invalid = apply(next, input, search);
    if (invalid) return invalid;
    next.updated_at = stamp();
    posts.set(post.id, next);
    return json(200, { posts: [next] });
  }

  /** Writes the fields Ghost takes onto a post; an answer when Ghost would refuse them. */
  function apply(
    post: GhostPost,
    input: Record<string, unknown>,
    search: URLSearchParams,
  ): Response | null {
    if (typeof input.title === "string") {
      if (input.title.length > 255)
        return ghostError(
          422,
          "ValidationError",
          "Validation error, cannot save post.",
          "Value in [posts.title] exceeds maximum length of 255 characters.",
        );
      post.title = input.title;
    }
    if (typeof input.custom_excerpt === "string" && input.custom_excerpt.length > 300) {
      return ghostError(
        422,
        "ValidationError",
        "Validation error, cannot save post.",
        "Value in [posts.custom_excerpt] exceeds maximum length of 300 characters.",
      );
    }
    if ("custom_excerpt" in input)
      post.custom_excerpt = (input.custom_excerpt as string | null) ?? null;
    if ("canonical_url" in input)
      post.canonical_url = (input.canonical_url as string | null) ?? null;
    if (typeof input.html === "string") {
      // Without `?source=html` Ghost ignores `html` (it stores Lexical or mobiledoc only).
      if (search.get("source") === "html") post.html = input.html;
    }
    if (typeof input.slug === "string") post.slug = uniqueSlug(input.slug, post.id);
    else if (!post.slug) post.slug = uniqueSlug(slugify(post.title), post.id);
    if (typeof input.status === "string") post.status = input.status;
    if (typeof input.published_at === "string") post.published_at = input.published_at;
    if (post.status === "published" && !post.published_at)
      post.published_at = new Date().toISOString();
    if (Array.isArray(input.tags)) post.tags = input.tags.map(tagFor);
    post.url =
      post.status === "published" ? `${origin()}/${post.slug}/` : `${origin()}/p/${post.uuid}/`;
    return null;
  }

  function uniqueSlug(wanted: string, id: string): string {
    const base = slugify(wanted) || "untitled";
    let slug = base;
    for (
      let n = 2;
      [...posts.values()].some((other) => other.slug === slug && other.id !== id);
      n++
    )
      slug = `${base}-${n}`;
    return slug;
  }

  function tagFor(input: unknown): GhostPost["tags"][number] {
    const wanted =
      typeof input === "string" ? { name: input } : (input as { name?: string; slug?: string });
    const name = wanted.name ?? wanted.slug ?? "";
    const slug = wanted.slug ?? slugify(name.replace(/^#/, "hash-"));
    const existing =
      tags.get(slug) ??
      [...tags.values()].find((tag) => tag.name.toLowerCase() === name.toLowerCase());
    if (existing) return existing;
    const tag = {
      id: hexOf(12),
      name,
      slug,
      visibility: name.startsWith("#") ? ("internal" as const) : ("public" as const),
    };
    tags.set(slug, tag);
    return tag;
  }

  async function upload(request: Request): Promise<Response> {
    if (!mayWrite()) return noPermission();
    let form: FormData;
    try {
      form = await request.formData();
    } catch {
      return ghostError(422, "ValidationError", "Please select an image.");
    }
    const file = form.get("file");
    if (!(file instanceof Blob))
      return ghostError(422, "ValidationError", "Please select an image.");
    if (!IMAGE_TYPES.has(file.type)) {
      return ghostError(
        415,
        "UnsupportedMediaTypeError",
        "Please select a valid image.",
        "Please select a valid image.",
      );
    }
    const name = slugify(((file as File).name ?? "image").replace(/\.[^.]*$/, "")) || "image";
    const extension =
      /\.([a-z0-9]+)$/i.exec((file as File).name ?? "")?.[1]?.toLowerCase() ?? "img";
    let path = `/content/images/2026/11/${name}.${extension}`;
    for (let n = 1; images.has(path); n++)
      path = `/content/images/2026/11/${name}-${n}.${extension}`;
    const ref = form.get("ref");
    images.set(path, {
      bytes: new Uint8Array(await file.arrayBuffer()),
      contentType: file.type,
      ref: typeof ref === "string" ? ref : null,
    });
    return json(201, {
      images: [{ url: `${origin()}${path}`, ref: typeof ref === "string" ? ref : null }],
    });
  }

  return {
    key,
    /** The key as Ghost Admin shows it on the integration's page. */
    adminApiKey: `${key.id}:${key.secret}`,
    url: () => origin(),
    posts,
    images,
    requests,
    /** Makes the key a staff user's token of this role (`null`: an integration's key again). */
    setStaffRole(role: string | null) {
      state.staffRole = role;
    },
    /** An edit made in Ghost Admin: the post's `updated_at` moves on. */
    editInGhost(id: string, change: Partial<GhostPost>) {
      const post = posts.get(id);
      if (!post) throw new Error(`no post ${id}`);
      posts.set(id, { ...post, ...change, updated_at: stamp() });
    },
    stop: () => server.stop(true),
  };
}

export type GhostAdminServer = ReturnType<typeof startGhostAdminServer>;

/** Ghost verifies with `jsonwebtoken`: its words for each refusal, so messages read as Ghost's. */
function jsonwebtokenWords(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = (error as Error).message;
  if (code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED") return "invalid signature";
  if (code === "ERR_JWT_EXPIRED") return /age/.test(message) ? "maxAge exceeded" : "jwt expired";
  if (code === "ERR_JOSE_ALG_NOT_ALLOWED") return "invalid algorithm";
  return message;
}

function project(post: GhostPost, fields: string | null): Record<string, unknown> {
  if (!fields) return { ...post };
  const wanted = new Set(fields.split(","));
  return Object.fromEntries(Object.entries(post).filter(([name]) => wanted.has(name)));
}

function firstOf(body: unknown): Record<string, unknown> | null {
  const posts = (body as { posts?: unknown } | null)?.posts;
  const first = Array.isArray(posts) ? posts[0] : null;
  return typeof first === "object" && first !== null ? (first as Record<string, unknown>) : null;
}

function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 185);
}

function json(status: number, body: unknown): Response {
  return Response.json(body, { status });
}

/** Ghost's error body: one entry in `errors`, with its type and code. */
function ghostError(
  status: number,
  type: string,
  message: string,
  context: string | null = null,
  code: string | null = null,
): Response {
  return json(status, {
    errors: [
      {
        message,
        context,
        type,
        details: null,
        property: null,
        help: null,
        code,
        id: crypto.randomUUID(),
        ghostErrorCode: null,
      },
    ],
  });
}
