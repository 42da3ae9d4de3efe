import { createHash } from "node:crypto";
import { ApiError } from "@newsroom/shared/errors";
import sharp, { type Metadata } from "sharp";

/**
 * Uploaded images: the type sniffed from the bytes (never the file name), decoded by sharp
 * within a pixel budget, turned upright by their EXIF orientation and stored only as re-encoded
 * variants, which carry no metadata (EXIF, GPS, XMP, IPTC, comments) because sharp writes none
 * unless asked.
 */

export const IMAGE_TYPES = ["image/jpeg", "image/png", "image/webp", "image/avif"] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/** Past this many pixels an image is refused before it is decoded (a decompression bomb). */
export const MAX_IMAGE_PIXELS = 50_000_000;

/** The widths of the public WebP variants; an image narrower than one is never upscaled. */
export const VARIANT_WIDTHS = [480, 960, 1600] as const;

export const UNSUPPORTED_TYPE_MESSAGE =
  "The file must be a JPEG, PNG, WebP or AVIF image (judged by its content, not its name).";

const EXTENSION: Record<ImageType, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/webp": "webp",
  "image/avif": "avif",
};

const ascii = (bytes: Uint8Array, start: number, end: number) =>
  String.fromCharCode(...bytes.subarray(start, end));

/** The image type the bytes are, by their signature; null for anything else (SVG, HTML, GIF…). */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return "image/jpeg";
  }
  if (bytes.length >= 8 && ascii(bytes, 0, 8) === "\x89PNG\r\n\x1a\n") return "image/png";
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") {
    return "image/webp";
  }
  // An ISO BMFF file whose brand (major or compatible) is AVIF's.
  if (bytes.length >= 16 && ascii(bytes, 4, 8) === "ftyp") {
    const boxSize = Math.min(new DataView(bytes.buffer, bytes.byteOffset).getUint32(0), 64);
    const brands = [ascii(bytes, 8, 12)];
    for (let at = 16; at + 4 <= Math.min(boxSize, bytes.length); at += 4) {
      brands.push(ascii(bytes, at, at + 4));
    }
    if (brands.includes("avif") || brands.includes("avis")) return "image/avif";
  }
  return null;
}

/** One stored rendition: its bytes and public name (`{sha256 prefix}-{width}.{ext}`). */
export interface ImageVariant {
  name: string;
  contentType: ImageType;
  width: number;
  height: number;
  data: Uint8Array;
}

export interface ProcessedImage {
  contentType: ImageType;
  /** Upright size (after the EXIF orientation). */
  width: number;
  height: number;
  sha256: string;
  /** The WebP variants, narrowest first, then the original format re-encoded. */
  variants: ImageVariant[];
}

function refused(reason: string, message: string): ApiError {
  return new ApiError("validation_failed", message, {
    fields: [{ field: "file", reason, message }],
  });
}

const SHARP_OPTIONS = { limitInputPixels: MAX_IMAGE_PIXELS, failOn: "error" } as const;

/**
 * The stored form of an uploaded image, or a 422 naming `file`: a type other than JPEG, PNG,
 * WebP or AVIF, bytes that do not decode as the type they claim, or more than MAX_IMAGE_PIXELS.
 */
export async function processImage(bytes: Uint8Array): Promise<ProcessedImage> {
  const contentType = sniffImageType(bytes);
  if (!contentType) {
    throw refused("unsupported_type", UNSUPPORTED_TYPE_MESSAGE);
  }
  let meta: Metadata;
  try {
    // The header only: the pixel budget is checked below, with a message that says it.
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw refused("unreadable", "The image could not be read.");
  }
  const { width, height } = meta.autoOrient;
  if (!width || !height) throw refused("unreadable", "The image could not be read.");
  if (width * height > MAX_IMAGE_PIXELS) {
    throw refused(
      "too_many_pixels",
      `The image is ${width} × ${height} pixels; at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels are accepted.`,
    );
  }
  const widths = [...new Set(VARIANT_WIDTHS.map((target) => Math.min(target, width)))];
  try {
    const variants: ImageVariant[] = [];
    for (const target of widths) {
      variants.push(await render(bytes, "image/webp", target));
    }
    variants.push(await render(bytes, contentType, width));
    return {
      contentType,
      width,
      height,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      variants: uniqueByName(variants),
    };
  } catch {
    throw refused("unreadable", "The image could not be decoded.");
  }
}

async function render(source: Uint8Array, type: ImageType, width: number): Promise<ImageVariant> {
  // rotate() with no angle turns the pixels upright by the EXIF orientation before it is dropped.
  const pipeline = sharp(source, SHARP_OPTIONS)
    .rotate()
    .resize({ width, withoutEnlargement: true });
  const encoded =
    type === "image/webp"
      ? pipeline.webp({ quality: 80 })
      : type === "image/avif"
        ? pipeline.avif({ quality: 55, effort: 2 })
        : type === "image/png"
          ? pipeline.png()
          : pipeline.jpeg({ quality: 85, mozjpeg: true });
  const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
  const hash = createHash("sha256").update(data).digest("hex").slice(0, 20);
  return {
    name: `${hash}-${info.width}.${EXTENSION[type]}`,
    contentType: type,
    width: info.width,
    height: info.height,
    data: new Uint8Array(data),
  };
}

function uniqueByName(variants: ImageVariant[]): ImageVariant[] {
  const seen = new Set<string>();
  return variants.filter((variant) => !seen.has(variant.name) && seen.add(variant.name));
}
