import { rawQuery } from "../../infrastructure/db/client";
import { createGroupCommit } from "../../infrastructure/db/group-commit";
import { wakeWorkers } from "../../infrastructure/jobs/worker";

export const WEBHOOK_QUEUE = "whatsapp.webhook";

/**
 * Durable storage of webhook deliveries with group commit (infrastructure/db/group-commit.ts): one
 * transaction (one fsync) acknowledges many webhooks under load, and a lone webhook is written at
 * once. A delivery is acknowledged only after its row and its job are committed.
 */
export function createWebhookIngest(options: { maxBatch?: number; maxInFlight?: number } = {}) {
  const commits = createGroupCommit<{ body: string; signature: string }>(
    async (deliveries) => {
      await storeDeliveries(
        deliveries.map((d) => d.body),
        deliveries.map((d) => d.signature),
      );
      wakeWorkers();
    },
    { maxBatch: options.maxBatch ?? 500, maxInFlight: options.maxInFlight ?? 2 },
  );
  return {
    /** Resolves once the delivery is committed; rejects if it could not be stored (answer 503 or 500, Meta retries). */
    store: (body: string, signature: string) => commits.add({ body, signature }),
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
