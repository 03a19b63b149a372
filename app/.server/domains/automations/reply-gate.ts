import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { conversationLockKey, lockKeys } from "../messaging";

/**
 * The reply gate (issue 71, decision 097): the one step every automated reply passes at the moment it
 * is queued, in the reply's own transaction: a keyword rule's, the welcome and away messages, a
 * flow's (answering a customer or on its own, after a wait or at its idle time) and the assistant's.
 * Under the conversation's lock (messaging/conversation-lock.ts, the same lock a person takes to hold
 * it) and the number's, it reads and checks, at that moment:
 *
 * - nobody holds the conversation (a member answered, was assigned it, or it was handed over);
 * - the customer has not opted out since the message being answered (a flow's own message: not
 *   opted out at all);
 * - the customer's 24-hour window is still open, for free-form replies;
 * - the conversation's and the number's automated replies in the last hour are under their caps.
 *
 * What was decided earlier (on arrival, in a batch, before a model call) only saves work: whatever it
 * read may have changed since, and the gate's answer is the one that counts. A refused reply leaves
 * nothing behind (the caller rolls its transaction back).
 */

/** Automated replies one conversation may get in an hour, and one business number may send. */
export const CONVERSATION_HOURLY_CAP = 10;
export const NUMBER_HOURLY_CAP = 1000;

/** Why the gate kept a reply back. */
export type GateRefusal = "held" | "opted_out" | "window_closed" | "capped";

export interface ReplyAsk {
  conversationId: string;
  /** The business number it goes from (Meta's id). */
  phoneNumberId: string;
  /** Whether it sends anything (an answer may only tag, assign or move a flow on: no cap, no window then). */
  sends: boolean;
  /** All of its messages are free-form (not a template): the customer's window must be open. */
  freeForm: boolean;
  /** The customer's message it answers; null for a flow's own message. */
  answering: string | null;
}

interface GateRow {
  /** The ask's place (1-based) for its conversation's row; 0 for a number's. */
  at: number;
  phone_number_id: string | null;
  held: boolean;
  opted_out: boolean;
  window_open: boolean;
  replies: number;
}

/** The number's lock: its hourly cap holds exactly, however many workers and instances answer on it. */
const numberLockKey = (phoneNumberId: string) => `automation-number:${phoneNumberId}`;

/**
 * Locks the asks' conversations, then their numbers (each set in key order, so two gates never wait
 * on each other in a circle), reads what decides them in one statement, and answers each ask in
 * order: null when it may be queued, else why not. The counts include the asks admitted before it,
 * so a batch's replies to one conversation stop at its cap. The locks are held to the commit.
 */
export async function admitAutomatedReplies(tx: Executor, asks: readonly ReplyAsk[]): Promise<(GateRefusal | null)[]> {
  if (!asks.length) return [];
  const conversations = [...new Set(asks.map((a) => a.conversationId))].sort();
  const numbers = [...new Set(asks.filter((a) => a.sends).map((a) => a.phoneNumberId))].sort();
  await lockKeys(tx, [...conversations.map(conversationLockKey), ...numbers.map(numberLockKey)]);
  // Read after the locks, so what a person committed before them is seen (each statement reads anew).
  const rows = await queryRows<GateRow>(
    tx,
    sql`
    with asked as (
      select * from unnest(${sql.param(asks.map((a) => a.conversationId))}::uuid[], ${sql.param(asks.map((a) => a.answering))}::uuid[])
        with ordinality as t(v, m, n)
    )
    select a.n::int as at, null::text as phone_number_id, v.person_held_at is not null as held,
           -- An opt-out at or after the message answered (any, for a flow's own message).
           (c.opt_in = 'opted_out' and (a.m is null or c.opt_in_changed_at is null
              or c.opt_in_changed_at >= (select p.created_at from messages p where p.id = a.m))) as opted_out,
           coalesce(v.last_inbound_at > now() - interval '24 hours', false) as window_open,
           (select count(*) from automation_runs r where r.conversation_id = v.id and r.reply_id is not null
              and r.created_at > now() - interval '1 hour')::int as replies
    from asked a join conversations v on v.id = a.v join contacts c on c.id = v.contact_id
    union all
    select 0, n, false, false, false,
           -- At most the cap (the gate holds it), read from the replies' own index (automation_runs_number_replies_idx).
           (select count(*) from automation_runs r where r.phone_number_id = n and r.reply_id is not null
              and r.created_at > now() - interval '1 hour')::int
    from unnest(${sql.param(numbers)}::text[]) as n`,
  );
  const askRows = new Map(rows.filter((r) => r.at > 0).map((r) => [r.at - 1, r]));
  const sentFromNumber = new Map(rows.filter((r) => r.at === 0).map((r) => [r.phone_number_id!, r.replies]));
  const sentHere = new Map<string, number>();

  return asks.map((ask, i): GateRefusal | null => {
    const row = askRows.get(i);
    if (!row || row.held) return "held";
    if (row.opted_out) return "opted_out";
    if (!ask.sends) return null;
    if (ask.freeForm && !row.window_open) return "window_closed";
    const here = sentHere.get(ask.conversationId) ?? row.replies;
    const fromNumber = sentFromNumber.get(ask.phoneNumberId) ?? 0;
    if (here >= CONVERSATION_HOURLY_CAP || fromNumber >= NUMBER_HOURLY_CAP) return "capped";
    sentHere.set(ask.conversationId, here + 1);
    sentFromNumber.set(ask.phoneNumberId, fromNumber + 1);
    return null;
  });
}

/** Thrown inside a reply's transaction when the gate kept it back: nothing of it is kept. */
export class KeptBack extends Error {
  constructor(readonly why: GateRefusal) {
    super(`automated reply kept back: ${why}`);
  }
}

/** The gate for one reply: throws KeptBack (the transaction rolls back) unless it may be queued. */
export async function admitAutomatedReply(tx: Executor, ask: ReplyAsk) {
  const [why] = await admitAutomatedReplies(tx, [ask]);
  if (why) throw new KeptBack(why);
}
