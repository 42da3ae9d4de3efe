/**
 * Progress of `npm test` while bun runs: bun's dots reporter writes one "." per finished test on
 * stderr, between the failures it prints in full. The dots are counted and dropped; everything
 * else (failures, logs) passes through as it comes. Inside a failure (from its `error:` line to
 * its `(fail)` line) a line of dots is the failure's own text.
 */
export class DotCounter {
  tests = 0;
  failed = 0;
  /** The current line holds only dots so far. */
  private onDots = false;
  private line = "";
  private inFailure = false;

  /** Takes a chunk of bun's stderr; returns what to show of it. */
  feed(text: string): string {
    let shown = "";
    for (const char of text) {
      if (char === "." && !this.inFailure && (this.onDots || this.line === "")) {
        this.tests += 1;
        this.onDots = true;
        continue;
      }
      if (this.onDots) {
        this.onDots = false;
        // The newline that ends a run of dots was never a line of its own.
        if (char === "\n") continue;
      }
      shown += char;
      if (char === "\n") {
        if (this.line.startsWith("(fail)")) {
          this.failed += 1;
          this.inFailure = false;
        } else if (this.line.startsWith("error:")) {
          this.inFailure = true;
        }
        this.line = "";
      } else {
        this.line += char;
      }
    }
    return shown;
  }

  /** One line for the terminal: tests done so far, failures, time since the start. */
  progress(elapsedMs: number): string {
    const minutes = Math.floor(elapsedMs / 60_000);
    const seconds = Math.floor((elapsedMs % 60_000) / 1000);
    const failed = this.failed > 0 ? `, ${this.failed} failed` : "";
    return `  ${this.tests} tests done${failed} (${minutes} min ${seconds} s)`;
  }
}
