import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { distinctMessageKeys, messageKeyTable, type MessageKey } from "../../infrastructure/db/message-keys";
import { changeWallet } from "../billing";
import { formatKes } from "~/lib/invoice";

/**
 * Meta's free entry point window (reference commerce §2.2, decision 154): when a customer writes
 * from a Click-to-WhatsApp ad and the business answers within 24 hours, that answer opens a window of
 * 72 hours in which every message to them, templates too, is free. Jumbe opens it when Meta accepts
 * the answer and does not charge the wallet for what is sent inside it: where the charge is written
 * (the messages Meta accepted, in their settling transaction, before `chargeAccepted`).
 */
export const FREE_ENTRY_REPLY_HOURS = 24;
export const FREE_ENTRY_HOURS = 72;

/**
 * Of the messages Meta just accepted: those that answer an ad entry in time open its free window,
 * and those inside a free window leave their price unpaid (`charge_state = 'free'`; a held price is
 * released). Runs before the charge, so a free message is never charged then refunded.
 */
export async function settleFreeEntry(tx: Executor, messages: readonly MessageKey[]) {
  if (!messages.length) return;
  const freed = await queryRows<{ organization_id: string; was: string; n: number | string; cents: number | string }>(
    tx,
    sql`
    with sent as (
      select m.id, m.created_at, m.organization_id, m.phone_number_id, m.contact_id, m.accepted_at, m.charge_state, coalesce(m.price_cents, 0) as price
      from messages m join ${messageKeyTable(distinctMessageKeys(messages))} on m.id = k.id and m.created_at = k.created_at
      where m.direction = 'outbound' and m.accepted_at is not null
        and m.contact_id is not null
      for update of m),
    windows as (
      select v.id, v.organization_id, v.phone_number_id, v.contact_id, v.free_entry_until, v.ad_entry_at,
             (select min(s.accepted_at) from sent s
              where s.organization_id = v.organization_id and s.phone_number_id = v.phone_number_id and s.contact_id = v.contact_id) as first_at
      from conversations v
      where v.ad_entry_at is not null
        and (v.organization_id, v.phone_number_id, v.contact_id) in (select organization_id, phone_number_id, contact_id from sent)
      for update of v),
    opened as (
      update conversations v set free_entry_until = w.first_at + make_interval(hours => ${FREE_ENTRY_HOURS})
      from windows w
      where v.id = w.id and w.free_entry_until is null
        and w.first_at >= w.ad_entry_at and w.first_at < w.ad_entry_at + make_interval(hours => ${FREE_ENTRY_REPLY_HOURS})
      returning v.id, v.free_entry_until),
    free as (
      update messages m set charge_state = 'free'
      from sent s
      join windows w on w.organization_id = s.organization_id and w.phone_number_id = s.phone_number_id and w.contact_id = s.contact_id
      left join opened o on o.id = w.id
      where m.id = s.id and m.created_at = s.created_at and s.charge_state in ('held', 'unbilled') and s.accepted_at < coalesce(o.free_entry_until, w.free_entry_until)
      returning m.organization_id, s.charge_state as was, s.price)
    select organization_id, was, count(*) as n, sum(price) as cents from free group by 1, 2`,
  );
  for (const row of freed) {
    const cents = Number(row.cents);
    if (row.was !== "held" || !cents) continue;
    const n = Number(row.n);
    const entry = await changeWallet(tx, {
      organizationId: row.organization_id,
      kind: "release",
      amountCents: 0,
      heldCents: -cents,
      messageCount: n,
      description: `${n} message${n === 1 ? "" : "s"} free in an ad's free entry window: ${formatKes(cents)} released`,
    });
    if (!entry) throw new Error(`The wallet of ${row.organization_id} could not release its free messages' hold.`);
  }
}
