/**
 * A public answer sent as it is with its media type (a sitemap, robots.txt, a feed), rather than
 * as JSON; cached, tagged and made conditional like every other answer.
 */
export class TextDocument {
  constructor(
    readonly text: string,
    readonly contentType: string,
  ) {}
}
