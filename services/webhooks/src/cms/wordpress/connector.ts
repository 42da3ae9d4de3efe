import { escapeHtml } from "@newsroom/shared/html";
import {
  type CmsCheck,
  type CmsConnector,
  type CmsImage,
  type CmsPost,
  CmsRefused,
  type RemoteImage,
  type RemotePost,
  type UnpublishMode,
} from "../connector.ts";
import { type CmsHttpOptions, CmsUnreachable, cmsFetch } from "../http.ts";
import { wordPressBlocks } from "./blocks.ts";

export interface WordPressCredential {
  username: string;
  application_password: string;
}

/** Every status a post can have, trash included: a marker is looked for in all of them. */
const ANY_STATUS = "publish,future,draft,pending,private,trash";

interface WpPost {
  id: number;
  link?: string;
  modified_gmt?: string;
  status?: string;
  content?: { raw?: string };
}

/**
 * A WordPress site through its REST API (`wp/v2`), authenticated with an application password
 * (HTTP Basic, WordPress 5.6 and later, no plugin).
 *
 * Routes are addressed as `/?rest_route=/wp/v2/...` rather than `/wp-json/wp/v2/...`: WordPress
 * answers that form whatever its permalink settings are, so a site without pretty permalinks
 * works too.
 *
 * The marker: post meta is not exposed over REST without a plugin registering it, and WordPress
 * rewrites slugs (a `-2` on a clash, `__trashed` in the trash), so the marker goes into the
 * content itself, as the class of the closing paragraph (a block attribute WordPress keeps:
 * `className`). `findByMarker` asks the REST search (`search`, which matches post content) in
 * every status and keeps only the posts whose raw content holds the marker.
 *
 * WordPress has no conditional update (no `If-Unmodified-Since` on posts), so `update` never
 * raises `CmsConflict`: the newsroom's version wins.
 */
export class WordPressConnector implements CmsConnector {
  private readonly authorization: string;

  constructor(
    private readonly siteUrl: string,
    credential: WordPressCredential,
    private readonly http: CmsHttpOptions,
  ) {
    this.authorization = `Basic ${Buffer.from(
      `${credential.username}:${credential.application_password.replace(/\s+/g, "")}`,
    ).toString("base64")}`;
  }

  async check(): Promise<CmsCheck> {
    let response: Response;
    try {
      response = await this.request("GET", "/wp/v2/users/me", { context: "edit" });
    } catch (error) {
      if (error instanceof CmsUnreachable) {
        return { ok: false, problem: "unreachable", message: error.message };
      }
      throw error;
    }
    const body = (await response.json().catch(() => null)) as {
      code?: string;
      name?: string;
      capabilities?: Record<string, boolean>;
    } | null;
    if (response.status === 401 || response.status === 403) {
      return {
        ok: false,
        problem: "refused_credentials",
        message:
          "WordPress refused the user name or the application password. Make a new application password on the user's profile page (Users › Profile › Application Passwords) and paste it here.",
      };
    }
    if (!response.ok || !body || typeof body.capabilities !== "object") {
      return {
        ok: false,
        problem: "unexpected_answer",
        message: `No WordPress REST API answered at this address (HTTP ${response.status}). Give the site's home address, such as https://example.com.`,
      };
    }
    const missing = ["publish_posts", "upload_files"].filter((cap) => !body.capabilities?.[cap]);
    if (missing.length > 0) {
      return {
        ok: false,
        problem: "missing_capability",
        message: `The WordPress user may not ${missing
          .map((cap) => (cap === "publish_posts" ? "publish posts" : "upload files"))
          .join(" or ")}. Give the user the Author role or a higher one.`,
      };
    }
    return { ok: true };
  }

  async findByMarker(marker: string): Promise<RemotePost | null> {
    const response = await this.request("GET", "/wp/v2/posts", {
      search: marker,
      status: ANY_STATUS,
      context: "edit",
      per_page: "20",
    });
    // WordPress lets a refused application password through as an anonymous request, which
    // may not list drafts and the trash: it answers 400 (`rest_invalid_param`) or 401, not
    // "wrong password". Asking who the user is tells the two apart.
    if (response.status === 400 || response.status === 401) {
      const me = await this.request("GET", "/wp/v2/users/me");
      if (me.status === 401) {
        throw new CmsRefused(
          "WordPress refused the user name or the application password (HTTP 401).",
        );
      }
      // Signed in, yet not allowed to see drafts: a role below Author.
      throw new CmsRefused(
        `WordPress does not let this user see its own drafts (HTTP ${response.status}): give the user the Author role or a higher one.`,
      );
    }
    const posts = (await this.answer(response, "looking for the post")) as WpPost[];
    const found = posts.find((post) => post.content?.raw?.includes(marker));
    return found ? remoteOf(found) : null;
  }

  async create(post: CmsPost): Promise<RemotePost> {
    const response = await this.request(
      "POST",
      "/wp/v2/posts",
      {},
      json({ ...this.fields(post), tags: await this.tagIds(post.topics) }),
    );
    return remoteOf((await this.answer(response, "creating the post")) as WpPost);
  }

  async update(remote: RemotePost, post: CmsPost): Promise<RemotePost> {
    const response = await this.request(
      "POST",
      `/wp/v2/posts/${encodeURIComponent(remote.id)}`,
      {},
      json({ ...this.fields(post), tags: await this.tagIds(post.topics) }),
    );
    return remoteOf((await this.answer(response, "updating the post")) as WpPost);
  }

  async unpublish(remote: RemotePost, mode: UnpublishMode): Promise<void> {
    const path = `/wp/v2/posts/${encodeURIComponent(remote.id)}`;
    const response =
      mode === "trash"
        ? await this.request("DELETE", path)
        : await this.request("POST", path, {}, json({ status: "draft" }));
    // Already in the trash (410), or deleted by hand (404): nothing is left on the site.
    if (response.status === 410 || response.status === 404) return;
    await this.answer(response, "unpublishing the post");
  }

  async uploadImage(image: CmsImage): Promise<RemoteImage> {
    const filename = image.filename.replace(/[^A-Za-z0-9._-]/g, "_");
    const response = await this.request(
      "POST",
      "/wp/v2/media",
      image.alt ? { alt_text: image.alt } : {},
      {
        headers: {
          "content-type": image.contentType,
          "content-disposition": `attachment; filename="${filename}"`,
        },
        body: image.bytes,
      },
    );
    const media = (await this.answer(response, "uploading an image")) as {
      id: number;
      source_url: string;
    };
    return { id: String(media.id), url: media.source_url };
  }

  /**
   * The story's topics as WordPress tags (found by slug, else created). Best effort: a site that
   * does not let the user make tags gets the post without them, never no post.
   */
  private async tagIds(topics: string[]): Promise<number[]> {
    const ids: number[] = [];
    for (const topic of topics.slice(0, 20)) {
      const slug = topic.toLowerCase().replace(/[^a-z0-9-]/g, "-");
      const found = await this.request("GET", "/wp/v2/tags", { slug, context: "edit" });
      const existing = found.ok ? ((await found.json().catch(() => [])) as { id: number }[]) : [];
      if (existing[0]) {
        ids.push(existing[0].id);
        continue;
      }
      const made = await this.request("POST", "/wp/v2/tags", {}, json({ name: topic, slug }));
      if (made.ok) ids.push(((await made.json()) as { id: number }).id);
    }
    return ids;
  }

  /** The post's fields: title and excerpt escaped (themes print them as HTML), block content. */
  private fields(post: CmsPost) {
    return {
      title: escapeHtml(post.title),
      excerpt: post.summary ? escapeHtml(post.summary) : "",
      content: wordPressBlocks({
        body: post.body,
        images: post.images,
        canonicalUrl: post.canonicalUrl,
        marker: post.marker,
      }),
      slug: post.slug,
      status: "publish",
      date_gmt: post.publishedAt.replace(/Z$/, "").replace(/\.\d+$/, ""),
    };
  }

  private request(
    method: "GET" | "POST" | "DELETE",
    route: string,
    query: Record<string, string> = {},
    content: { headers?: Record<string, string>; body?: string | Uint8Array } = {},
  ): Promise<Response> {
    const url = new URL(this.siteUrl);
    if (!url.pathname.endsWith("/")) url.pathname = `${url.pathname}/`;
    url.search = "";
    url.searchParams.set("rest_route", route);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return cmsFetch(
      url.href,
      {
        method,
        headers: {
          authorization: this.authorization,
          accept: "application/json",
          ...content.headers,
        },
        body: content.body,
      },
      this.http,
    );
  }

  /**
   * A 2xx answer's JSON. Refused credentials and missing rights are `CmsRefused` (retrying will
   * not help); anything else is an error the writer retries.
   */
  private async answer(response: Response, doing: string): Promise<unknown> {
    const body = (await response.json().catch(() => null)) as {
      code?: unknown;
      message?: unknown;
    } | null;
    if (response.ok && body !== null) return body;
    const code = typeof body?.code === "string" ? body.code : null;
    if (response.status === 401) {
      throw new CmsRefused(
        "WordPress refused the user name or the application password (HTTP 401).",
      );
    }
    if (response.status === 403) {
      throw new CmsRefused(
        `WordPress does not let this user do that (HTTP 403${code ? `, ${code}` : ""}) while ${doing}.`,
      );
    }
    throw new Error(
      `WordPress answered HTTP ${response.status}${code ? ` (${code})` : ""} while ${doing}.`,
    );
  }
}

function json(value: unknown) {
  return { headers: { "content-type": "application/json" }, body: JSON.stringify(value) };
}

function remoteOf(post: WpPost): RemotePost {
  return {
    id: String(post.id),
    updatedAt: post.modified_gmt ?? null,
    url: post.link ?? null,
  };
}
