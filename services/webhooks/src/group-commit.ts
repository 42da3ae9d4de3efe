interface Waiting<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the first item is written at once, and the items that arrive while a write is
 * in progress go together in the next one (at most `maxBatch`). Each caller's promise settles
 * with its own item's result when its batch is written, or rejects with the batch's error.
 * `write` returns one result per item, in order.
 */
export class GroupCommit<I, O> {
  private queue: Waiting<I, O>[] = [];
  private writing: Promise<void> | null = null;

  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 500,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.writing ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const results = await this.write(batch.map((waiting) => waiting.item));
        for (const [index, waiting] of batch.entries()) waiting.resolve(results[index] as O);
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.writing = null;
  }
}
