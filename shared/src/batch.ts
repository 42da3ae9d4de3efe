/**
 * Gathers the calls made within one turn of the event loop and answers them with one `run` over
 * all their inputs: many concurrent requests, one database query or one Redis script.
 *
 * Exact, not a cache: a batch starts (on the next `setImmediate`) only after every call in it
 * was made, so each answer is read after its own call, never shared with a call that came
 * earlier or later. Batches do not wait for each other: one may start while another is still in
 * flight. `run` answers the inputs in their order; if it throws, every call of the batch rejects
 * with that error.
 */
export function batched<In, Out>(
  run: (inputs: In[]) => Promise<Out[]>,
  options: { maxSize?: number } = {},
): (input: In) => Promise<Out> {
  const maxSize = options.maxSize ?? 256;
  let waiting: { input: In; resolve: (out: Out) => void; reject: (error: unknown) => void }[] = [];

  const start = () => {
    const batch = waiting;
    waiting = [];
    if (batch.length === 0) return;
    run(batch.map((call) => call.input)).then(
      (outs) => {
        if (outs.length !== batch.length) {
          const error = new Error(`batch answered ${outs.length} of ${batch.length} inputs`);
          for (const call of batch) call.reject(error);
          return;
        }
        for (const [i, call] of batch.entries()) call.resolve(outs[i]!);
      },
      (error) => {
        for (const call of batch) call.reject(error);
      },
    );
  };

  return (input) =>
    new Promise<Out>((resolve, reject) => {
      waiting.push({ input, resolve, reject });
      if (waiting.length === 1) setImmediate(start);
      else if (waiting.length >= maxSize) start();
    });
}
