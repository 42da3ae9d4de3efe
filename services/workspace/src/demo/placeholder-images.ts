import sharp from "sharp";

/** The demo's picture colours: one placeholder per colour, shared by the stories. */
export const PLACEHOLDER_COLOURS = [
  "#1f6f8b",
  "#99a8b2",
  "#e6d5b8",
  "#3e7c59",
  "#b5523b",
  "#5b4b8a",
];

/**
 * A placeholder picture for the demo (a landscape of flat shapes and a caption), drawn as SVG
 * and rasterized here to PNG: the demo stores it through the same upload path as a person's
 * image, so its cards show real, served images.
 */
export async function placeholderImage(
  label: string,
  colour: string,
  width = 960,
  height = 540,
): Promise<Uint8Array> {
  const escaped = label.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 1200 675">
<rect width="1200" height="675" fill="${colour}"/>
<circle cx="930" cy="170" r="90" fill="#ffffff" fill-opacity="0.55"/>
<path d="M0 520 L300 300 L520 470 L760 250 L1200 560 L1200 675 L0 675 Z" fill="#000000" fill-opacity="0.25"/>
<path d="M0 600 L400 430 L800 590 L1200 480 L1200 675 L0 675 Z" fill="#ffffff" fill-opacity="0.2"/>
<text x="60" y="110" font-family="sans-serif" font-size="64" font-weight="700" fill="#ffffff">${escaped}</text>
</svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}
