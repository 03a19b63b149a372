import { sql } from "drizzle-orm";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { foldAnalytics } from "~/.server/domains/analytics/fold";
import { envelope, inboundChange, metaJson, startReceiver } from "./whatsapp";

/**
 * A tenant's message history written through the paths production uses: outbound messages stored as
 * the sending engine leaves them (inserted already accepted, or queued then accepted by an update),
 * Meta's statuses and customers' messages through the real webhook receiver, ingest and processing
 * (duplicated, shuffled and in several deliveries), then the analytics fold. And the figures
 * recomputed from the raw messages, in plain code, with decision 036's definitions.
 */

export const HOUR = 3_600_000;
export const MINUTE = 60_000;

/** A small seeded generator (mulberry32): the same seed gives the same history. */
export function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface Number_ {
  phoneNumberId: string;
  digits: string;
  wabaId: string;
}

export interface OutboundSpec {
  contactId: string;
  number: Number_;
  templateId: string | null;
  source: "campaign" | "api" | "inbox" | "broadcast";
  acceptedAt: Date | null;
  /** Jumbe refused it before Meta (never accepted): failed at this time. */
  refusedAt?: Date;
  charged: boolean;
  /** Store it queued, then accept it with an update (the dispatcher's path) rather than insert it accepted. */
  viaUpdate: boolean;
  wamid: string;
}

export interface StatusSpec {
  wamid: string;
  number: Number_;
  status: "sent" | "delivered" | "read" | "failed";
  at: Date;
  pricingCategory?: string;
}

export interface InboundSpec {
  number: Number_;
  waId: string;
  name: string;
  at: Date;
  wamid: string;
  text: string;
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** Stores outbound messages: each either inserted as accepted, or inserted queued and then accepted. */
export async function storeOutbound(organizationId: string, specs: OutboundSpec[]) {
  const ids: string[] = [];
  for (const s of specs) {
    const accepted = s.viaUpdate ? null : s.acceptedAt;
    const [row] = await rawQuery<{ id: string }>(
      `insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, message_type, source, template_id,
                             wamid, accepted_at, failed_at, error_code, error_title, price_cents, charge_state, created_at)
       values ($1, $2, 'outbound', $3, 'Habari', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       returning id`,
      [
        organizationId,
        s.contactId,
        s.refusedAt ? "failed" : "queued",
        s.number.phoneNumberId,
        s.templateId ? "template" : "text",
        s.source,
        s.templateId,
        accepted ? s.wamid : null,
        accepted?.toISOString() ?? null,
        s.refusedAt?.toISOString() ?? null,
        s.refusedAt ? 131_026 : null,
        s.refusedAt ? "Refused" : null,
        s.charged ? 200 : null,
        s.charged ? (s.refusedAt ? "released" : accepted ? "charged" : "held") : null,
        new Date((s.acceptedAt ?? s.refusedAt ?? new Date()).getTime() - 2_000).toISOString(),
      ],
    );
    ids.push(row!.id);
  }
  // The dispatcher's settle: a batch accepted in one statement, charged in another.
  const later = specs.map((s, i) => ({ s, id: ids[i]! })).filter(({ s }) => s.viaUpdate && s.acceptedAt);
  if (later.length)
    await db().transaction(async (tx) => {
      await tx.execute(sql`
        update messages m set wamid = a.wamid, accepted_at = a.at, locked_until = null
        from unnest(${sql.param(later.map((l) => l.id))}::uuid[], ${sql.param(later.map((l) => l.s.wamid))}::text[],
                    ${sql.param(later.map((l) => l.s.acceptedAt!.toISOString()))}::timestamptz[]) as a(id, wamid, at)
        where m.id = a.id`);
      await tx.execute(sql`update messages set charge_state = 'charged' where id = any(${sql.param(later.map((l) => l.id))}::uuid[])
                           and charge_state = 'held'`);
    });
  return ids;
}

/** Posts Meta's statuses through the real receiver in deliveries of `per` (each drained), in the given order. */
export async function deliverStatuses(statuses: StatusSpec[], per = 25) {
  const receiver = await startReceiver();
  try {
    for (let i = 0; i < statuses.length; i += per) {
      const batch = statuses.slice(i, i + per);
      const byNumber = new Map<string, StatusSpec[]>();
      for (const s of batch) byNumber.set(s.number.phoneNumberId, [...(byNumber.get(s.number.phoneNumberId) ?? []), s]);
      const entries = [...byNumber.values()].map((list) => ({
        id: list[0]!.number.wabaId,
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: list[0]!.number.digits, phone_number_id: list[0]!.number.phoneNumberId },
              statuses: list.map((s) => ({
                id: s.wamid,
                status: s.status,
                timestamp: String(seconds(s.at)),
                recipient_id: "254712345678",
                ...(s.pricingCategory
                  ? { pricing: { billable: true, pricing_model: "PMP", category: s.pricingCategory, type: "regular" } }
                  : {}),
                ...(s.status === "failed" ? { errors: [{ code: 131_026, title: "Message undeliverable" }] } : {}),
              })),
            },
          },
        ],
      }));
      const response = await receiver.post(metaJson(envelope(entries)));
      if (response.status !== 200) throw new Error(`The receiver answered ${response.status}`);
      await drainJobs();
    }
  } finally {
    await receiver.close();
  }
}

/** Posts customers' messages through the real receiver, one delivery each, in the given order. */
export async function deliverInbound(inbound: InboundSpec[]) {
  const receiver = await startReceiver();
  try {
    for (const m of inbound) {
      const raw = metaJson(
        envelope([
          {
            id: m.number.wabaId,
            changes: [
              inboundChange(m.number.phoneNumberId, m.number.digits, {
                id: m.wamid,
                from: m.waId,
                name: m.name,
                text: m.text,
                timestamp: seconds(m.at),
              }),
            ],
          },
        ]),
      );
      const response = await receiver.post(raw);
      if (response.status !== 200) throw new Error(`The receiver answered ${response.status}`);
    }
    await drainJobs();
  } finally {
    await receiver.close();
  }
}

/** Folds until nothing is pending (the job's work, run here directly). */
export async function foldAll() {
  for (let i = 0; i < 20; i++) {
    const done = await foldAnalytics();
    if (!done.deltas && !done.events) return;
  }
}

// ---------------------------------------------------------------------------------------------
// The recomputation, from raw rows.

export interface RawMessage {
  id: string;
  direction: "inbound" | "outbound";
  status: string;
  source: string | null;
  contact_id: string | null;
  phone_number_id: string | null;
  template_id: string | null;
  template_category: string | null;
  pricing_category: string | null;
  sent_at: string | null;
  created_at: string;
  accepted_at: string | null;
  delivered_at: string | null;
  read_at: string | null;
  failed_at: string | null;
  charge_state: string | null;
  price_cents: number | null;
  seq: number;
}

export async function rawMessages(organizationId: string) {
  return queryRows<RawMessage>(
    db(),
    sql`
    select m.id, m.direction, m.status, m.source, m.contact_id, m.phone_number_id, m.template_id, t.category as template_category,
           m.pricing_category, m.sent_at::text, m.created_at::text, m.accepted_at::text, m.delivered_at::text, m.read_at::text,
           m.failed_at::text, m.charge_state, m.price_cents, m.seq::int as seq
    from messages m left join message_templates t on t.id = m.template_id
    where m.organization_id = ${organizationId}`,
  );
}

const ms = (value: string | null) => (value === null ? null : Date.parse(value.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00")));

export function categoryOf(m: RawMessage) {
  const c = (m.pricing_category ?? m.template_category ?? "").toLowerCase();
  if (c.startsWith("marketing")) return "marketing";
  if (c.startsWith("authentication")) return "authentication";
  if (c === "utility") return "utility";
  return "service";
}

export interface Recomputed {
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  replied: number;
  received: number;
  spendCents: number;
  uniqueContacts: number;
  responses: number;
  responseSeconds: number;
  byTemplate: Map<string, { sent: number; delivered: number; read: number; replied: number }>;
  byCategory: Map<string, { messages: number; spendCents: number }>;
}

/**
 * Every figure of [start, end) from the raw messages: each event in the hour it happened; replies and
 * first responses by walking each conversation in time order (decision 036).
 */
export function recompute(rows: RawMessage[], start: number, end: number, number: string | null = null): Recomputed {
  const list = rows.filter((m) => number === null || m.phone_number_id === number);
  const inRange = (t: number | null) => t !== null && t >= start && t < end;
  const out: Recomputed = {
    sent: 0,
    delivered: 0,
    read: 0,
    failed: 0,
    replied: 0,
    received: 0,
    spendCents: 0,
    uniqueContacts: 0,
    responses: 0,
    responseSeconds: 0,
    byTemplate: new Map(),
    byCategory: new Map(),
  };
  const template = (id: string) => {
    const t = out.byTemplate.get(id) ?? { sent: 0, delivered: 0, read: 0, replied: 0 };
    out.byTemplate.set(id, t);
    return t;
  };
  const contacts = new Set<string>();
  for (const m of list) {
    if (m.direction === "inbound") {
      const at = ms(m.sent_at) ?? ms(m.created_at);
      if (inRange(at)) {
        out.received++;
        if (m.contact_id) contacts.add(m.contact_id);
      }
      continue;
    }
    const accepted = ms(m.accepted_at);
    const delivered = ms(m.delivered_at) ?? ms(m.read_at);
    if (inRange(accepted)) {
      out.sent++;
      const cents = m.charge_state === "charged" ? (m.price_cents ?? 0) : 0;
      out.spendCents += cents;
      const c = out.byCategory.get(categoryOf(m)) ?? { messages: 0, spendCents: 0 };
      c.messages++;
      c.spendCents += cents;
      out.byCategory.set(categoryOf(m), c);
      if (m.template_id) template(m.template_id).sent++;
      if (m.contact_id) contacts.add(m.contact_id);
    }
    if (inRange(delivered)) {
      out.delivered++;
      if (m.template_id) template(m.template_id).delivered++;
    }
    if (inRange(ms(m.read_at))) {
      out.read++;
      if (m.template_id) template(m.template_id).read++;
    }
    if (m.status === "failed" && inRange(ms(m.failed_at))) out.failed++;
  }
  out.uniqueContacts = contacts.size;

  // Replies: each customer message, in time order, answers the business message it follows on that number.
  const byConversation = new Map<string, RawMessage[]>();
  for (const m of rows) {
    if (!m.contact_id || !m.phone_number_id) continue;
    const key = `${m.contact_id}|${m.phone_number_id}`;
    byConversation.set(key, [...(byConversation.get(key) ?? []), m]);
  }
  const credited = new Set<string>();
  for (const conversation of byConversation.values()) {
    if (number !== null && conversation[0]!.phone_number_id !== number) continue;
    const outbound = conversation.filter((m) => m.direction === "outbound" && m.accepted_at);
    const inbound = conversation
      .filter((m) => m.direction === "inbound")
      .map((m) => ({ m, at: (ms(m.sent_at) ?? ms(m.created_at))! }))
      .sort((a, b) => a.at - b.at || a.m.seq - b.m.seq);
    for (const { at } of inbound) {
      const latest = outbound
        .filter((o) => ms(o.accepted_at)! <= at && ms(o.accepted_at)! > at - 24 * HOUR)
        .sort((a, b) => ms(b.accepted_at)! - ms(a.accepted_at)! || b.seq - a.seq)[0];
      if (!latest || credited.has(latest.id)) continue;
      credited.add(latest.id);
      if (inRange(at)) {
        out.replied++;
        if (latest.template_id) template(latest.template_id).replied++;
      }
    }
    // First responses: a reply from the inbox or the API ends the wait that began with the customer's
    // first message since the previous such reply.
    const replies = outbound
      .filter((o) => o.source === "inbox" || (o.source === "api" && !o.template_id))
      .sort((a, b) => ms(a.accepted_at)! - ms(b.accepted_at)! || a.seq - b.seq);
    let before = -Infinity;
    for (const reply of replies) {
      const r = ms(reply.accepted_at)!;
      const since = inbound.find(({ at }) => at > before && at <= r);
      if (since && inRange(r)) {
        out.responses++;
        out.responseSeconds += Math.round((r - since.at) / 1000);
      }
      before = r;
    }
  }
  return out;
}
