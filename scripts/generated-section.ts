/**
 * A generated part of a Markdown file sits between two marker comments; everything else in the
 * file is written by hand and kept as it is.
 */
export interface Markers {
  start: string;
  end: string;
}

/** `text` with what lies between the markers replaced by `body`, or null without the markers. */
export function withGeneratedSection(text: string, markers: Markers, body: string): string | null {
  const start = text.indexOf(markers.start);
  const end = text.indexOf(markers.end);
  if (start < 0 || end < start) return null;
  return `${text.slice(0, start + markers.start.length)}\n${body.trim()}\n${text.slice(end)}`;
}
