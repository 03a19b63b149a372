import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";

/**
 * A conversation's lock (issue 71): who may speak in it is decided under it. Every automated reply
 * takes it when it is queued (automations/reply-gate.ts) and reads there whether a person holds the
 * conversation; every write that gives the conversation to a person (a member's reply, an assignment,
 * a hand-over) takes it before it sets `person_held_at`. So the two are ordered: a reply queued
 * first is the bot's last word, and a reply that comes second finds the person there and is not
 * queued at all, however long its model call or its batch took.
 *
 * A transaction's advisory lock, held to its commit. Order: a wallet's row (a template's price, held
 * before a message is stored) comes before it, a conversation's row after it; several conversations
 * are locked in one statement in the keys' order.
 */
export const conversationLockKey = (conversationId: string) => `automation:${conversationId}`;

/** Takes the conversations' locks in a fixed order (one statement); waits for whoever holds one. */
export async function lockConversations(tx: Executor, conversationIds: readonly string[]) {
  const keys = [...new Set(conversationIds)].map(conversationLockKey).sort();
  if (!keys.length) return;
  await lockKeys(tx, keys);
}

/** Advisory locks by their keys, in the order given (the caller sorts). */
export async function lockKeys(tx: Executor, keys: readonly string[]) {
  if (keys.length === 1) {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${keys[0]!}))`);
    return;
  }
  // A volatile function in the select list is evaluated after the sort: the locks are taken in order.
  await tx.execute(sql`
    select pg_advisory_xact_lock(hashtext(k)) from unnest(${sql.param([...keys])}::text[]) with ordinality as t(k, n) order by n`);
}
