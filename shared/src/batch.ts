interface Waiting<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

export interface BatcherOptions {
  /** Items in one run at most (default 500). */
  maxBatch?: number;
  /**
   * Runs under way at once (default 1: group commit, each write after the one before). Reads
   * that may overlap take more, so that a batch does not wait for the round trip of another.
   */
  concurrency?: number;
}

/**
 * Many concurrent calls answered by one `run` over all their items: one database statement, one
 * transaction or one Redis script for many requests. The first item waits one turn of the event
 * loop; the items that arrive meanwhile, or while every allowed run is under way, go together
 * in the next run.
 *
 * Exact, never a cache: a run starts only after every item in it arrived, so what it reads was
 * read after each caller asked. Each caller's promise settles with its own item's result, or
 * rejects with its run's error. `run` answers one result per item, in order.
 */
export class Batcher<I, O> {
  private queue: Waiting<I, O>[] = [];
  private running = 0;
  private inRuns = 0;
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly concurrency: number;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    options: BatcherOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 500;
    this.concurrency = options.concurrency ?? 1;
  }

  /** Items not answered yet: waiting for a run, or in one under way. */
  get waiting(): number {
    return this.queue.length + this.inRuns;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /**
   * A run on the next turn of the event loop, if one is allowed: requests whose I/O already
   * finished (answers received while the thread was busy) join it.
   */
  private schedule(): void {
    if (this.scheduled || this.running >= this.concurrency || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  private start(): void {
    if (this.running >= this.concurrency || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.running += 1;
    this.inRuns += batch.length;
    this.run(batch.map((waiting) => waiting.item))
      .then((results) => {
        if (results.length !== batch.length) {
          throw new Error(`a batch of ${batch.length} was answered with ${results.length} results`);
        }
        for (const [index, waiting] of batch.entries()) waiting.resolve(results[index] as O);
      })
      .catch((error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      })
      .finally(() => {
        this.running -= 1;
        this.inRuns -= batch.length;
        this.schedule();
      });
    this.schedule();
  }
}
