import zlib from "node:zlib";
import sharp from "sharp";

/** Small images for upload tests, made with sharp. */
export function pngImage(width = 64, height = 48): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: "#3a7" } })
    .png()
    .toBuffer();
}

/**
 * A JPEG whose EXIF holds a GPS position and a camera, stored sideways (orientation 6: shown
 * turned a quarter, so upright it is `height` wide).
 */
export function jpegWithGps(width = 1200, height = 800): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: "#c52" } })
    .jpeg()
    .withExifMerge({
      IFD0: { Make: "TestCam", Model: "Secret 1" },
      IFD3: {
        GPSLatitudeRef: "N",
        GPSLatitude: "51/1 30/1 0/1",
        GPSLongitudeRef: "W",
        GPSLongitude: "0/1 7/1 0/1",
      },
    })
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

/**
 * A decompression bomb: a real PNG of 20,000 × 20,000 one-bit pixels (400 megapixels once
 * decoded) that weighs about 50 KB, written by hand so the test never decodes it.
 */
export function pngBomb(side = 20_000): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  const rows = Buffer.alloc((1 + Math.ceil(side / 8)) * side); // filter byte 0, black pixels
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", zlib.deflateSync(rows, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A multipart upload body. */
export function uploadForm(
  file: { bytes: Uint8Array; name: string; type?: string } | null,
  fields: Record<string, string> = {
    alt: "A test image",
    credit: "Photo: Test",
    rights_holder: "Test Ltd",
  },
): FormData {
  const form = new FormData();
  if (file) {
    form.append(
      "file",
      new File([file.bytes as Uint8Array<ArrayBuffer>], file.name, {
        type: file.type ?? "application/octet-stream",
      }),
    );
  }
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}
