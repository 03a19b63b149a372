import { databaseIsDown, DatabaseUnavailableError } from "./availability";

interface Pending<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for durable intake (WhatsApp's and Shopify's webhooks): items that arrive while a
 * write is in flight wait and go together in the next one, so one write (one statement, one fsync)
 * takes many under load and a lone item is written at once. Each `add` resolves only after the write
 * that carried it committed, and rejects with its error otherwise. While the database is known to be
 * down every batch fails at once (DatabaseUnavailableError: the sender retries on a 503) rather than
 * waiting for a connect timeout per batch (decision 011).
 */
export function createGroupCommit<T>(write: (items: T[]) => Promise<void>, options: { maxBatch?: number; maxInFlight?: number } = {}) {
  const maxBatch = options.maxBatch ?? 500;
  const maxInFlight = options.maxInFlight ?? 1;
  let queue: Pending<T>[] = [];
  let inFlight = 0;
  let scheduled = false;

  function schedule() {
    if (scheduled || inFlight >= maxInFlight || !queue.length) return;
    scheduled = true;
    // setImmediate gathers the requests whose bodies finished arriving in the same turn of the loop.
    setImmediate(() => {
      scheduled = false;
      void flush();
    });
  }

  async function flush() {
    if (inFlight >= maxInFlight || !queue.length) return;
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(batch.length);
    inFlight++;
    try {
      if (databaseIsDown()) throw new DatabaseUnavailableError();
      await write(batch.map((p) => p.item));
      for (const p of batch) p.resolve();
    } catch (error) {
      for (const p of batch) p.reject(error);
    } finally {
      inFlight--;
      schedule();
    }
  }

  return {
    /** Resolves once the item is committed; rejects if its write failed. */
    add(item: T) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
  };
}
