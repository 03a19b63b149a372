import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { isRefusal, type Refusal } from "../../infrastructure/refusal";
import { composeMessage, type Composed } from "./compose";
import { isFreeForm, summaryOf, type OutboundContent } from "./content";
import { resolveSenderNumber, type SenderNumber } from "./sender";

/**
 * Free-form replies to customers who have just written (automations' answers), many in one
 * transaction: queueMessage's checks and insert, for a batch, without a statement a message for
 * what the caller has read already (the customer's open window, the quoted message's wamid).
 */
export interface ReplyRequest {
  organizationId: string;
  /** The number the customer wrote to (Meta's id): the reply goes from it. */
  phoneNumberId: string;
  /** The customer, E.164. */
  to: string;
  /** In order; free-form only (text, interactive…): the window is open. */
  contents: OutboundContent[];
  /** The wamid of the customer's message the first reply quotes, if any. */
  quotes?: string | null;
}

export interface ComposedReply {
  request: ReplyRequest;
  sender: SenderNumber;
  composed: Composed[];
}

/** Whether a request can go this way: free-form messages only (a template is priced and checked one by one). */
export const isBatchable = (contents: readonly OutboundContent[]) => contents.length > 0 && contents.every(isFreeForm);

/**
 * Each request's messages as Meta will get them, from the number it answers on; one read a number
 * (a closing organisation, a number disconnected since: that request's refusal instead).
 */
export async function composeReplies(requests: readonly ReplyRequest[]): Promise<(ComposedReply | Refusal)[]> {
  const senders = new Map<string, Promise<SenderNumber>>();
  const senderOf = (r: ReplyRequest) => {
    const key = `${r.organizationId}|${r.phoneNumberId}`;
    if (!senders.has(key)) senders.set(key, resolveSenderNumber(r.organizationId, r.phoneNumberId));
    return senders.get(key)!;
  };
  const out: (ComposedReply | Refusal)[] = [];
  for (const request of requests) {
    try {
      const sender = await senderOf(request);
      const composed: Composed[] = [];
      for (const [i, content] of request.contents.entries())
        composed.push(
          await composeMessage(
            request.organizationId,
            sender,
            request.to,
            content,
            i === 0 && request.quotes ? { wamid: request.quotes } : undefined,
          ),
        );
      out.push({ request, sender, composed });
    } catch (error) {
      if (!isRefusal(error, "send")) throw error;
      out.push(error);
    }
  }
  return out;
}

/**
 * Stores the replies queued in `tx`, in order (each request's messages one after another, so the
 * dispatcher sends them so), labelled with `runIds[i]`; returns each request's message ids.
 */
export async function insertReplies(tx: Executor, replies: readonly ComposedReply[], runIds: readonly string[], source: "automation") {
  const rows = replies.flatMap((reply, i) =>
    reply.request.contents.map((content, k) => ({
      at: i,
      organizationId: reply.request.organizationId,
      to: reply.request.to,
      body: summaryOf(content).slice(0, 4096),
      phoneNumberId: reply.sender.phoneNumberId,
      kind: content.kind,
      graph: JSON.stringify(reply.composed[k]!.graph),
      contextWamid: reply.composed[k]!.contextWamid,
      runId: runIds[i]!,
    })),
  );
  if (!rows.length) return runIds.map(() => [] as string[]);
  const col = <K extends keyof (typeof rows)[number]>(key: K) => sql.param(rows.map((r) => r[key]));
  const inserted = await queryRows<{ id: string; run_id: string; seq: string }>(
    tx,
    sql`
    insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, message_type, payload,
                          source, recipient_phone, context_wamid, next_attempt_at, automation_run_id)
    select t.o, (select c.id from contacts c where c.organization_id = t.o and (c.phone = t.r or c.wa_id = substr(t.r, 2)) limit 1),
           'outbound', 'queued', t.b, t.p, t.k, t.g, ${source}, t.r, t.w, now(), t.u
    from unnest(${col("organizationId")}::uuid[], ${col("to")}::text[], ${col("body")}::text[], ${col("phoneNumberId")}::text[],
                ${col("kind")}::text[], ${col("graph")}::jsonb[], ${col("contextWamid")}::text[], ${col("runId")}::uuid[])
         with ordinality as t(o, r, b, p, k, g, w, u, n)
    order by t.n
    returning id, automation_run_id as run_id, seq::text as seq`,
  );
  // Each request's ids in the order they were stored (seq): the order its messages are sent in.
  const byRun = new Map<string, { id: string; seq: bigint }[]>();
  for (const row of inserted) byRun.set(row.run_id, [...(byRun.get(row.run_id) ?? []), { id: row.id, seq: BigInt(row.seq) }]);
  return runIds.map((runId) => (byRun.get(runId) ?? []).sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0)).map((row) => row.id));
}
