import { rawQuery } from "../../infrastructure/db/client";
import { databaseIsDown, DatabaseUnavailableError } from "../../infrastructure/db/availability";
import { wakeWorkers } from "../../infrastructure/jobs/worker";

export const WEBHOOK_QUEUE = "whatsapp.webhook";

interface Pending {
  body: string;
  signature: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Durable storage of webhook deliveries with group commit: deliveries that arrive while a write is
 * in flight wait and go together in the next one, so one transaction (one fsync) acknowledges many
 * webhooks under load, and a lone webhook is written at once. A delivery is acknowledged only after
 * its row and its job are committed.
 */
export function createWebhookIngest(options: { maxBatch?: number; maxInFlight?: number } = {}) {
  const maxBatch = options.maxBatch ?? 500;
  const maxInFlight = options.maxInFlight ?? 2;
  let queue: Pending[] = [];
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
      // While the database is known to be down, answer at once (503; Meta retries) rather than wait
      // for a connect timeout per batch (decision 011).
      if (databaseIsDown()) throw new DatabaseUnavailableError();
      await storeDeliveries(
        batch.map((p) => p.body),
        batch.map((p) => p.signature),
      );
      for (const p of batch) p.resolve();
      wakeWorkers();
    } catch (error) {
      for (const p of batch) p.reject(error);
    } finally {
      inFlight--;
      schedule();
    }
  }

  return {
    /** Resolves once the delivery is committed; rejects if it could not be stored (answer 503 or 500, Meta retries). */
    store(body: string, signature: string) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ body, signature, resolve, reject });
        schedule();
      });
    },
  };
}

/** One statement: the raw deliveries, and one job that points at all of them. */
export async function storeDeliveries(bodies: string[], signatures: string[]) {
  await rawQuery(
    `with stored as (
       insert into webhook_events (body, signature)
       select b, s from unnest($1::text[], $2::text[]) as t(b, s)
       returning id
     )
     insert into jobs (queue, payload)
     select $3, jsonb_build_object('eventIds', jsonb_agg(id order by id)) from stored`,
    [bodies, signatures, WEBHOOK_QUEUE],
  );
}
