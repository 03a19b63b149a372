import { sql } from "drizzle-orm";
import { db, rawQuery, type Executor } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";

/**
 * Meta's messaging limit: how many different people a business portfolio may reach with
 * business-initiated messages (templates to someone whose service window is closed) in a rolling 24
 * hours, shared by all the portfolio's numbers. Meta has no error code for going over it (it lowers
 * the portfolio's quality instead), so Jumbe counts and holds the messages that would exceed it.
 */

/** Recipients a day for Meta's tier name (TIER_250, TIER_2K, TIER_100K…); null: unlimited or not known. */
export function recipientsPerDay(tier: string | null | undefined): number | null {
  const match = /^TIER_(\d+)(K?)$/i.exec(tier?.trim() ?? "");
  if (!match) return null;
  return Number(match[1]) * (match[2] ? 1000 : 1);
}

/** How long a held message waits at least before it is looked at again. */
const MIN_HOLD_MS = 60_000;

/** The error title a message held by the messaging limit carries while it waits (the API shows it as its error). */
export const LIMIT_HELD = "messaging_limit_reached";

export interface LimitCandidate {
  id: string;
  organization_id: string;
  phone_number_id: string;
  recipient_phone: string;
  payload: Record<string, unknown>;
}

interface Portfolio {
  phone_number_id: string;
  organization_id: string;
  portfolio_id: string;
  messaging_limit: string | null;
}

/**
 * Reserves each business-initiated message's recipient under its portfolio's limit and answers the
 * messages that must wait, with how long. A person already reached in the last 24 hours costs
 * nothing; a template inside an open service window does not count. Reservations are taken under
 * a per-portfolio transaction lock, so every worker of every instance counts the same people.
 */
export async function holdOverMessagingLimit<M extends LimitCandidate>(messages: M[]): Promise<{ id: string; delayMs: number }[]> {
  const templates = messages.filter((m) => m.payload.type === "template");
  if (!templates.length) return [];
  const numbers = [...new Set(templates.map((m) => m.phone_number_id))];
  const portfolios = await rawQuery<Portfolio>(
    `select p.phone_number_id, p.organization_id, coalesce(a.business_id, a.waba_id) as portfolio_id, p.messaging_limit
     from whatsapp_phone_numbers p join whatsapp_accounts a on a.id = p.account_id
     where p.phone_number_id = any($1::text[]) and p.disconnected_at is null`,
    [numbers],
  );
  const limits = new Map<string, { portfolioId: string; limit: number }>();
  for (const p of portfolios) {
    const limit = recipientsPerDay(p.messaging_limit);
    if (limit !== null) limits.set(`${p.organization_id}|${p.phone_number_id}`, { portfolioId: p.portfolio_id, limit });
  }
  const limited = templates.filter((m) => limits.has(`${m.organization_id}|${m.phone_number_id}`));
  if (!limited.length) return [];

  const windowOpen = await openWindows(limited);
  const byPortfolio = new Map<string, { limit: number; recipients: Map<string, M[]> }>();
  for (const m of limited) {
    if (windowOpen.has(`${m.organization_id}|${m.phone_number_id}|${m.recipient_phone}`)) continue;
    const { portfolioId, limit } = limits.get(`${m.organization_id}|${m.phone_number_id}`)!;
    const entry = byPortfolio.get(portfolioId) ?? { limit, recipients: new Map<string, M[]>() };
    entry.limit = Math.max(entry.limit, limit);
    entry.recipients.set(m.recipient_phone, [...(entry.recipients.get(m.recipient_phone) ?? []), m]);
    byPortfolio.set(portfolioId, entry);
  }
  if (!byPortfolio.size) return [];

  const held: { id: string; delayMs: number }[] = [];
  await db().transaction(async (tx) => {
    // Sorted, so two workers locking the same portfolios never wait on each other in a circle.
    for (const portfolioId of [...byPortfolio.keys()].sort()) {
      const { limit, recipients } = byPortfolio.get(portfolioId)!;
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`messaging-limit:${portfolioId}`}, 0))`);
      const wanted = [...recipients.keys()];
      const state = (await queryRow<{ used: number; frees_in_ms: number | string | null; reached: string[] }>(
        tx,
        sql`
          select
            (select count(*)::int from messaging_limit_recipients
              where portfolio_id = ${portfolioId} and reached_at > now() - interval '24 hours') as used,
            (select extract(epoch from min(reached_at) + interval '24 hours' - now()) * 1000 from messaging_limit_recipients
              where portfolio_id = ${portfolioId} and reached_at > now() - interval '24 hours') as frees_in_ms,
            (select coalesce(array_agg(recipient), '{}') from messaging_limit_recipients
              where portfolio_id = ${portfolioId} and recipient = any(${sql.param(wanted)}::text[])
                and reached_at > now() - interval '24 hours') as reached`,
      ))!;
      const reached = new Set(state.reached);
      let room = Math.max(0, limit - state.used);
      const admitted: string[] = [];
      const holdMs = Math.max(MIN_HOLD_MS, Math.ceil(Number(state.frees_in_ms ?? 0)));
      for (const [recipient, waiting] of recipients) {
        if (reached.has(recipient)) continue;
        if (room > 0) {
          room--;
          admitted.push(recipient);
        } else for (const m of waiting) held.push({ id: m.id, delayMs: holdMs });
      }
      if (admitted.length)
        await tx.execute(sql`
          insert into messaging_limit_recipients (portfolio_id, recipient, reached_at)
          select ${portfolioId}, r, now() from unnest(${sql.param(admitted)}::text[]) as r
          on conflict (portfolio_id, recipient) do update set reached_at = excluded.reached_at`);
    }
  });
  return held;
}

/** The (organisation, number, recipient) triples of these messages whose service window is open. */
async function openWindows(messages: LimitCandidate[]) {
  const rows = await rawQuery<{ organization_id: string; phone_number_id: string; phone: string }>(
    `select v.organization_id, v.phone_number_id, c.phone
     from conversations v join contacts c on c.id = v.contact_id
     where v.last_inbound_at > now() - interval '24 hours'
       and (v.organization_id, v.phone_number_id, c.phone) in (select * from unnest($1::uuid[], $2::text[], $3::text[]))`,
    [messages.map((m) => m.organization_id), messages.map((m) => m.phone_number_id), messages.map((m) => m.recipient_phone)],
  );
  return new Set(rows.map((r) => `${r.organization_id}|${r.phone_number_id}|${r.phone}`));
}

/**
 * After a number's messaging limit was stored (Meta's quality webhook, or a Graph read): the
 * messages its portfolio holds for the limit become due now, for as many new people as the limit
 * has room for today (all of them when it is unlimited or not known), oldest first. Without this a
 * raised limit sent them only when the hold ran out, up to 24 hours later. The dispatcher reserves
 * each person again when it sends, so the new limit still holds; those beyond the room keep waiting.
 * A message paused or suspended ('infinity') stays as it is. Answers how many became due.
 */
export async function releaseMessagingLimitHolds(executor: Executor, phoneNumberId: string): Promise<number> {
  const portfolio = await queryRow<{
    portfolio_id: string;
    organization_ids: string[];
    phone_number_ids: string[];
    tiers: (string | null)[];
  }>(
    executor,
    sql`
      select coalesce(a.business_id, a.waba_id) as portfolio_id,
             array_agg(p.organization_id) as organization_ids, array_agg(p.phone_number_id) as phone_number_ids,
             array_agg(p.messaging_limit) as tiers
      from whatsapp_accounts a join whatsapp_phone_numbers p on p.account_id = a.id and p.disconnected_at is null
      where coalesce(a.business_id, a.waba_id) = (
        select coalesce(a2.business_id, a2.waba_id) from whatsapp_phone_numbers p2 join whatsapp_accounts a2 on a2.id = p2.account_id
        where p2.phone_number_id = ${phoneNumberId} and p2.disconnected_at is null limit 1)
      group by 1`,
  );
  if (!portfolio) return 0;
  // As the hold counts it: the highest tier among the portfolio's numbers; none known, no limit.
  const limits = portfolio.tiers.map(recipientsPerDay).filter((n): n is number => n !== null);
  const limit = limits.length ? Math.max(...limits) : null;
  const released = await queryRows<{ n: number }>(
    executor,
    sql`
    with reached as (
      select recipient from messaging_limit_recipients
      where portfolio_id = ${portfolio.portfolio_id} and reached_at > now() - interval '24 hours'),
    held as (
      select m.id, m.recipient_phone, m.seq from messages m
      where m.direction = 'outbound' and m.accepted_at is null and m.failed_at is null
        and m.next_attempt_at > now() and m.next_attempt_at < 'infinity' and m.error_title = ${LIMIT_HELD}
        and (m.organization_id, m.phone_number_id) in (
          select * from unnest(${sql.param(portfolio.organization_ids)}::uuid[], ${sql.param(portfolio.phone_number_ids)}::text[]))),
    room as (
      select h.recipient_phone from held h
      where h.recipient_phone not in (select recipient from reached)
      group by h.recipient_phone order by min(h.seq)
      limit (select case when ${limit}::int is null then null else greatest(0, ${limit}::int - count(*)) end from reached)),
    due as (
      update messages m set next_attempt_at = now()
      from held h
      where m.id = h.id and (h.recipient_phone in (select recipient_phone from room) or h.recipient_phone in (select recipient from reached))
      returning 1)
    select count(*)::int as n from due`,
  );
  return released[0]?.n ?? 0;
}
