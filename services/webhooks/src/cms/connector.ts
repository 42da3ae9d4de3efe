import type { StoryBody } from "@newsroom/shared/story-body";

/**
 * What the CMS writer needs of a client's CMS. One implementation per kind (WordPress, Ghost);
 * the writer (idempotency, retries, the story-to-post mapping) knows nothing of either.
 */
export interface CmsConnector {
  /** Whether the connection works: reachable, credentials accepted, allowed to write posts. */
  check(): Promise<CmsCheck>;
  /**
   * The post carrying this marker, if one exists: how a write that reached the CMS but was not
   * recorded here (a crash between the two) is found again rather than created twice.
   */
  findByMarker(marker: string): Promise<RemotePost | null>;
  create(post: CmsPost): Promise<RemotePost>;
  /** Throws `CmsConflict` when the CMS says the post changed since `remote` was read. */
  update(remote: RemotePost, post: CmsPost): Promise<RemotePost>;
  /** Takes the post off the client's site: back to a draft, or to the trash. */
  unpublish(remote: RemotePost, mode: UnpublishMode): Promise<void>;
  /** Puts an image into the CMS's media library once; the writer keeps the answer. */
  uploadImage(image: CmsImage): Promise<RemoteImage>;
}

export type UnpublishMode = "draft" | "trash";

export type CmsCheck =
  | { ok: true }
  | {
      ok: false;
      problem: "unreachable" | "refused_credentials" | "missing_capability" | "unexpected_answer";
      /** In plain words, for the person who set the connection up. Never holds a credential. */
      message: string;
    };

/** A story as it is written to a CMS. */
export interface CmsPost {
  /** Stable per story and connection, stored in the post (a meta field, a tag, a slug suffix). */
  marker: string;
  title: string;
  slug: string;
  summary: string | null;
  body: StoryBody;
  /** The story's canonical newsroom page: the post links back to it. */
  canonicalUrl: string;
  publishedAt: string;
  topics: string[];
  /** Cleared images of the body, by asset id, already uploaded to this CMS. */
  images: ReadonlyMap<string, RemoteImage>;
}

export interface RemotePost {
  id: string;
  /** The CMS's own last-modified stamp where it offers one for conflict checks (Ghost). */
  updatedAt: string | null;
  url: string | null;
}

export interface CmsImage {
  assetId: string;
  bytes: Uint8Array;
  filename: string;
  contentType: string;
  alt: string | null;
}

export interface RemoteImage {
  id: string;
  url: string;
}

/** The CMS refused an update because the post changed there since it was read. */
export class CmsConflict extends Error {}

/**
 * An answer the CMS gave that retrying will not change (credentials refused, a missing
 * capability): the write fails at once with this reason rather than walking the retry schedule.
 */
export class CmsRefused extends Error {}
