import { sql } from "drizzle-orm";
import { db, rawQuery } from "../db/client";

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
      const state = (
        (await tx.execute(sql`
          select
            (select count(*)::int from messaging_limit_recipients
              where portfolio_id = ${portfolioId} and reached_at > now() - interval '24 hours') as used,
            (select extract(epoch from min(reached_at) + interval '24 hours' - now()) * 1000 from messaging_limit_recipients
              where portfolio_id = ${portfolioId} and reached_at > now() - interval '24 hours') as frees_in_ms,
            (select coalesce(array_agg(recipient), '{}') from messaging_limit_recipients
              where portfolio_id = ${portfolioId} and recipient = any(${sql.param(wanted)}::text[])
                and reached_at > now() - interval '24 hours') as reached`)) as unknown as {
          rows: { used: number; frees_in_ms: number | string | null; reached: string[] }[];
        }
      ).rows[0]!;
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
