interface Waiting<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the first item is written after one turn of the event loop, and the items that
 * arrive meanwhile or while a write is in progress go together (at most `maxBatch`). Each caller's promise settles
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
      // One turn of the event loop first: work whose I/O already finished (answers received
      // while an in-process database held the thread) joins this batch.
      await new Promise<void>((resolve) => setImmediate(resolve));
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
