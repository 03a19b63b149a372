import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loader as keyApiLoader } from "~/routes/api/developer.api-key";
import { getRequest, run } from "../support/http";
import { signedInCookie } from "../support/accounts";
import { startApiV1Server } from "../support/api-v1-server";
import { sql } from "drizzle-orm";
import { db, rawQuery, type Database, type Executor } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { messageTemplates } from "~/.server/infrastructure/db/schema";
import { analyticsRange, analyticsReport } from "~/.server/domains/analytics/report";
import { foldAnalytics, pruneHourlyContacts } from "~/.server/domains/analytics/fold";
import { addDays, nairobiToday, parseAnalyticsFilters, type AnalyticsReport } from "~/lib/analytics";
import { nairobiMidnight } from "~/lib/dates";
import { createVerifiedUser } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";
import {
  deliverInbound,
  deliverStatuses,
  foldAll,
  HOUR,
  MINUTE,
  random,
  rawMessages,
  recompute,
  storeOutbound,
  type InboundSpec,
  type Number_,
  type OutboundSpec,
  type RawMessage,
  type StatusSpec,
} from "../support/analytics-history";

// Issue 18: every figure of the Analytics page, computed from the rollups, equals the same figure
// recomputed from the raw messages, for a random history delivered out of order and twice, across a
// Nairobi midnight and a month's end; on PGlite and on PostgreSQL (the integration suite runs on both).

const whole = (t: number) => new Date(Math.floor(t / 1000) * 1000);

async function tenant(name: string, numbers: { wabaId: string; phoneNumberId: string; display: string }[]) {
  const { organization } = await createVerifiedUser({ businessName: name });
  const connected: Number_[] = [];
  for (const n of numbers) {
    await connectedNumber(organization.id, n);
    connected.push({ phoneNumberId: n.phoneNumberId, wabaId: n.wabaId, digits: n.display.replace(/\D/g, "") });
  }
  return { organizationId: organization.id, numbers: connected };
}

async function templates(organizationId: string, wabaId: string) {
  const rows = await db()
    .insert(messageTemplates)
    .values(
      (["MARKETING", "UTILITY", "AUTHENTICATION"] as const).map((category, i) => ({
        organizationId,
        wabaId,
        name: `jumbe_${category.toLowerCase()}_${i}`,
        language: "en",
        category,
        status: "approved" as const,
        components: [{ type: "BODY", text: "Habari {{1}}" }],
      })),
    )
    .returning({ id: messageTemplates.id });
  return rows.map((r) => r.id);
}

async function contactsFor(organizationId: string, count: number, prefix: string) {
  const people: { id: string; waId: string; name: string }[] = [];
  for (let i = 0; i < count; i++) {
    const waId = `2547${prefix}${String(i).padStart(5, "0")}`;
    const [row] = await rawQuery<{ id: string }>(
      `insert into contacts (organization_id, name, phone, wa_id) values ($1, $2, $3, $4) returning id`,
      [organizationId, `Mteja ${i}`, `+${waId}`, waId],
    );
    people.push({ id: row!.id, waId, name: `Mteja ${i}` });
  }
  return people;
}

/**
 * A random history between `from` and `to`: template sends (some charged, some refused by Jumbe),
 * customers' messages and the business's answers, with Meta's statuses shuffled, repeated, some
 * "read" without "delivered", some carrying Meta's pricing category. Forced events sit on the given
 * instants (one second either side of a Nairobi midnight and of a month's start).
 */
function history(options: {
  seed: number;
  people: { id: string; waId: string; name: string }[];
  numbers: Number_[];
  templateIds: string[];
  from: number;
  to: number;
  sends: number;
  forced: number[];
  tag: string;
}) {
  const rnd = random(options.seed);
  const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)]!;
  const at = () => options.from + Math.floor(rnd() * (options.to - options.from));
  const outbound: OutboundSpec[] = [];
  const statuses: StatusSpec[] = [];
  const inbound: InboundSpec[] = [];
  let n = 0;
  const wamid = () => `wamid.${options.tag}.${++n}`;
  const send = (
    base: number,
    person: (typeof options.people)[number],
    number: Number_,
    templateId: string | null,
    source: OutboundSpec["source"],
  ) => {
    const refused = source === "campaign" && rnd() < 0.04;
    const id = wamid();
    const accepted = whole(base);
    outbound.push({
      contactId: person.id,
      number,
      templateId,
      source,
      acceptedAt: refused ? null : accepted,
      refusedAt: refused ? accepted : undefined,
      charged: !!templateId,
      viaUpdate: rnd() < 0.5,
      wamid: id,
    });
    if (refused) return;
    const category = rnd() < 0.3 ? pick(["marketing", "utility", "authentication", "service", "marketing_lite"]) : undefined;
    const sentAt = new Date(accepted.getTime() + 1000);
    statuses.push({ wamid: id, number, status: "sent", at: sentAt, pricingCategory: category });
    if (rnd() < 0.06) {
      statuses.push({ wamid: id, number, status: "failed", at: whole(sentAt.getTime() + rnd() * 30 * MINUTE) });
      return;
    }
    if (rnd() < 0.9) {
      const delivered = whole(sentAt.getTime() + rnd() * 3 * HOUR);
      // Meta sometimes sends "read" without "delivered": delivered then counts at the read.
      if (rnd() < 0.9) statuses.push({ wamid: id, number, status: "delivered", at: delivered, pricingCategory: category });
      if (rnd() < 0.7) statuses.push({ wamid: id, number, status: "read", at: whole(delivered.getTime() + rnd() * 5 * HOUR) });
    }
  };
  const forced = [...options.forced];
  for (let i = 0; i < options.sends; i++) {
    const base = forced.length ? forced.shift()! : at();
    const person = pick(options.people);
    const number = pick(options.numbers);
    send(base, person, number, pick(options.templateIds), "campaign");
    // About half the customers write back within a day; the business answers most of them.
    if (rnd() < 0.5) {
      const wrote = whole(base + 30_000 + rnd() * 20 * HOUR);
      if (wrote.getTime() >= options.to) continue;
      inbound.push({ number, waId: person.waId, name: person.name, at: wrote, wamid: wamid(), text: "Asante, nimepokea" });
      if (rnd() < 0.3)
        inbound.push({
          number,
          waId: person.waId,
          name: person.name,
          at: whole(wrote.getTime() + 20_000),
          wamid: wamid(),
          text: "Swali moja",
        });
      if (rnd() < 0.75) {
        const answered = wrote.getTime() + 60_000 + rnd() * 4 * HOUR;
        if (answered < options.to) send(answered, person, number, null, rnd() < 0.8 ? "inbox" : "api");
      }
    }
  }
  // Statuses arrive shuffled, and a fifth of them twice.
  const deliveries = [...statuses, ...statuses.filter(() => rnd() < 0.2)];
  for (let i = deliveries.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [deliveries[i], deliveries[j]] = [deliveries[j]!, deliveries[i]!];
  }
  inbound.sort((a, b) => a.at.getTime() - b.at.getTime());
  return { outbound, statuses: deliveries, inbound };
}

async function build(organizationId: string, h: ReturnType<typeof history>) {
  await storeOutbound(organizationId, h.outbound);
  await deliverInbound(h.inbound);
  await deliverStatuses(h.statuses);
  await foldAll();
}

/** The page's figures for a period against the recomputation from raw messages. */
function expectAgrees(report: AnalyticsReport, rows: RawMessage[], now: Date) {
  const range = analyticsRange(report.filters, now);
  const number = report.filters.number;
  const cur = recompute(rows, range.start.getTime(), range.end.getTime(), number);
  const prev = recompute(rows, range.previousStart.getTime(), range.start.getTime(), number);
  const label = `${report.filters.period} ${report.filters.from}..${report.filters.to} ${number ?? "all"}`;
  const cards = report.cards;
  expect(
    {
      sent: cards.sent,
      delivered: cards.delivered,
      read: cards.read,
      replied: cards.replied,
      failed: cards.failed,
      received: cards.received,
      spend: cards.spendCents,
      unique: cards.uniqueContacts,
    },
    label,
  ).toEqual({
    sent: { value: cur.sent, previous: prev.sent },
    delivered: { value: cur.delivered, previous: prev.delivered },
    read: { value: cur.read, previous: prev.read },
    replied: { value: cur.replied, previous: prev.replied },
    failed: { value: cur.failed, previous: prev.failed },
    received: { value: cur.received, previous: prev.received },
    spend: { value: cur.spendCents, previous: prev.spendCents },
    unique: { value: cur.uniqueContacts, previous: prev.uniqueContacts },
  });
  const minutes = (r: { responses: number; responseSeconds: number }) =>
    r.responses ? Math.round(r.responseSeconds / r.responses / 6) / 10 : null;
  expect(cards.avgResponseMinutes, label).toEqual({ value: minutes(cur), previous: minutes(prev) });
  expect(report.funnel, label).toEqual({ sent: cur.sent, delivered: cur.delivered, read: cur.read, replied: cur.replied });
  for (const c of report.categories) {
    expect({ category: c.category, messages: c.messages, spend: c.spendCents }, label).toEqual({
      category: c.category,
      messages: cur.byCategory.get(c.category)?.messages ?? 0,
      spend: cur.byCategory.get(c.category)?.spendCents ?? 0,
    });
  }
  for (const t of report.templates) {
    const want = cur.byTemplate.get(t.id);
    expect({ sent: t.sent, delivered: t.delivered, read: t.read, replied: t.replied }, `${label} ${t.name}`).toEqual(want);
  }
  expect(report.templates.length).toBe([...cur.byTemplate.values()].filter((t) => t.sent || t.delivered || t.read || t.replied).length);
  // Each row of the daily table is its own period.
  for (const row of report.daily) {
    const start = range.grain === "hour" ? Date.parse(`${row.period}:00+03:00`) : nairobiMidnight(row.period).getTime();
    const end = range.grain === "hour" ? start + HOUR : nairobiMidnight(addDays(row.period, 1)).getTime();
    const day = recompute(rows, start, end, number);
    expect(
      {
        sent: row.messagesSent,
        delivered: row.messagesDelivered,
        read: row.messagesRead,
        replied: row.messagesReplied,
        unique: row.uniqueContacts,
        response: row.avgResponseTime,
      },
      `${label} ${row.period}`,
    ).toEqual({
      sent: day.sent,
      delivered: day.delivered,
      read: day.read,
      replied: day.replied,
      unique: day.uniqueContacts,
      response: minutes(day),
    });
  }
  // The chart's bars add up to the period's figures.
  const volume = report.volume.points.reduce(
    (s, p) => ({ sent: s.sent + p.sent, delivered: s.delivered + p.delivered, read: s.read + p.read }),
    {
      sent: 0,
      delivered: 0,
      read: 0,
    },
  );
  expect(volume, label).toEqual({ sent: cur.sent, delivered: cur.delivered, read: cur.read });
}

const filters = (query: string, now: Date) => {
  const parsed = parseAnalyticsFilters(new URLSearchParams(query), now);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.filters;
};

describe("analytics rollups against the raw messages", () => {
  it("agrees for every period, number, day and hour of a random history delivered out of order and twice", async () => {
    const now = new Date();
    const today = nairobiToday(now);
    const midnight = nairobiMidnight(today).getTime();
    const monthStart = nairobiMidnight(`${today.slice(0, 8)}01`).getTime();
    const a = await tenant("Nyota Savings Sacco", [
      { wabaId: "318000000000001", phoneNumberId: "418000000000001", display: "+254 711 800 001" },
      { wabaId: "318000000000002", phoneNumberId: "418000000000002", display: "+254 711 800 002" },
    ]);
    // A second tenant writing to the same people at the same times: none of it may show in the first's figures.
    const b = await tenant("Duka la Mama Njeri", [
      { wabaId: "318000000000009", phoneNumberId: "418000000000009", display: "+254 722 800 009" },
    ]);
    const aTemplates = await templates(a.organizationId, a.numbers[0]!.wabaId);
    const bTemplates = await templates(b.organizationId, b.numbers[0]!.wabaId);
    const aPeople = await contactsFor(a.organizationId, 24, "11");
    const bPeople = await contactsFor(b.organizationId, 6, "11");
    const from = now.getTime() - 40 * 24 * HOUR;
    const to = now.getTime() - 2 * MINUTE;
    const forced = [midnight - 1000, midnight, midnight + 1000, monthStart - 1000, monthStart, now.getTime() - 3 * HOUR];
    await build(
      a.organizationId,
      history({ seed: 18, people: aPeople, numbers: a.numbers, templateIds: aTemplates, from, to, sends: 170, forced, tag: "a" }),
    );
    await build(
      b.organizationId,
      history({ seed: 81, people: bPeople, numbers: b.numbers, templateIds: bTemplates, from, to, sends: 40, forced, tag: "b" }),
    );

    const rowsA = await rawMessages(a.organizationId);
    // The history is what it claims: statuses moved messages, customers answered, some failed.
    expect(rowsA.filter((m) => m.read_at).length).toBeGreaterThan(40);
    expect(rowsA.filter((m) => m.status === "failed").length).toBeGreaterThan(3);
    expect(rowsA.filter((m) => m.charge_state === "refunded").length).toBeGreaterThan(0);
    const [replied] = await rawQuery<{ n: number }>(
      `select count(*)::int as n from messages where organization_id = $1 and replied_at is not null`,
      [a.organizationId],
    );
    expect(replied!.n).toBeGreaterThan(20);

    const crossing = `period=custom&from=${addDays(`${today.slice(0, 8)}01`, -3)}&to=${[addDays(`${today.slice(0, 8)}01`, 3), today].sort()[0]}`;
    const queries = ["period=24h", "period=7d", "period=30d", "period=90d", crossing, `period=30d&number=${a.numbers[1]!.phoneNumberId}`];
    for (const query of queries) {
      const report = await analyticsReport(a.organizationId, filters(query, now), now);
      expectAgrees(report, rowsA, now);
    }
    const thirty = await analyticsReport(a.organizationId, filters("period=30d", now), now);
    expect(thirty.cards.sent.value).toBeGreaterThan(100);
    expect(thirty.cards.avgResponseMinutes.value).not.toBeNull();

    // The second tenant's own figures are its own.
    const rowsB = await rawMessages(b.organizationId);
    expectAgrees(await analyticsReport(b.organizationId, filters("period=90d", now), now), rowsB, now);
    // And a tenant's number filter on another tenant's number finds nothing.
    const foreign = await analyticsReport(a.organizationId, filters(`period=90d&number=${b.numbers[0]!.phoneNumberId}`, now), now);
    expect(foreign.cards.sent.value).toBe(0);
    expect(foreign.cards.uniqueContacts.value).toBe(0);
  });
});

describe("analytics definitions", () => {
  it("measures the first response from the customer's first waiting message, not campaigns, and credits each reply once", async () => {
    const now = new Date();
    const a = await tenant("Nyota Savings Sacco", [
      { wabaId: "318000000000011", phoneNumberId: "418000000000011", display: "+254 711 800 011" },
    ]);
    const [templateId] = await templates(a.organizationId, a.numbers[0]!.wabaId);
    const [person] = await contactsFor(a.organizationId, 1, "12");
    const number = a.numbers[0]!;
    // Whole hours ago, so every event is in the last 24 hours and on known minutes.
    const base = Math.floor(now.getTime() / HOUR) * HOUR - 6 * HOUR;
    const at = (minutes: number) => new Date(base + minutes * MINUTE);
    const say = (minutes: number, text: string, n: number): InboundSpec => ({
      number,
      waId: person!.waId,
      name: person!.name,
      at: at(minutes),
      wamid: `wamid.def.in.${n}`,
      text,
    });
    const send = (minutes: number, source: OutboundSpec["source"], n: number): OutboundSpec => ({
      contactId: person!.id,
      number,
      templateId: source === "campaign" ? templateId! : null,
      source,
      acceptedAt: at(minutes),
      charged: source === "campaign",
      viaUpdate: n % 2 === 0,
      wamid: `wamid.def.out.${n}`,
    });
    // A template sent through the API at 2:10 (a notification) answers nobody's wait either.
    const notification = { ...send(130, "api", 5), templateId: templateId! };
    await storeOutbound(a.organizationId, [
      send(-30, "campaign", 1),
      send(10, "inbox", 2),
      send(90, "api", 3),
      send(120, "campaign", 4),
      notification,
    ]);
    // Waits: 0:00 (and 0:02 while still waiting) answered at 0:10 → 10 minutes; 1:00 answered at 1:30 → 30 minutes.
    // 2:05 answers the campaign message of 2:00 and waits on: no response yet, so not in the average.
    await deliverInbound([say(0, "Nimelipa", 1), say(2, "Mko?", 2), say(60, "Asante", 3), say(125, "Sawa", 4)]);
    await foldAll();

    const report = await analyticsReport(a.organizationId, filters("period=24h", now), now);
    expect(report.cards.avgResponseMinutes.value).toBe(20);
    // Answered: the campaign message of −0:30 (by 0:00), the inbox reply of 0:10 (by 1:00), the campaign
    // message of 2:00 (by 2:05). The API reply of 1:30 was followed by nothing before the next send.
    expect(report.cards.replied.value).toBe(3);
    const replied = await rawQuery<{ wamid: string; replied_at: string }>(
      `select wamid, replied_at::text from messages where organization_id = $1 and replied_at is not null order by wamid`,
      [a.organizationId],
    );
    expect(replied.map((r) => r.wamid)).toEqual(["wamid.def.out.1", "wamid.def.out.2", "wamid.def.out.4"]);
    expect(report.templates[0]).toMatchObject({ sent: 3, replied: 2 });

    // A status delivered again, and the fold run again, change nothing.
    await deliverStatuses([
      { wamid: "wamid.def.out.1", number, status: "read", at: at(-20) },
      { wamid: "wamid.def.out.1", number, status: "read", at: at(-20) },
      { wamid: "wamid.def.out.1", number, status: "delivered", at: at(-25) },
    ]);
    await foldAll();
    const again = await analyticsReport(a.organizationId, filters("period=24h", now), now);
    expect(again.cards.read.value).toBe(1);
    expect(again.cards.delivered.value).toBe(1);
    expect(again.cards.replied.value).toBe(3);
    // The delivery counts in the hour of the "delivered" status that came after the "read".
    const deliveredHour = again.daily.find((row) => row.messagesDelivered === 1)!;
    expect(Date.parse(`${deliveredHour.period}:00+03:00`)).toBe(Math.floor(at(-25).getTime() / HOUR) * HOUR);
  });

  it("writes each first-seen count once a fold, however many new customers share it", async () => {
    const a = await tenant("Kilifi Fresh Fish", [
      { wabaId: "318000000000031", phoneNumberId: "418000000000031", display: "+254 711 800 031" },
    ]);
    const number = a.numbers[0]!.phoneNumberId;
    // Whatever earlier tests left pending is folded first: the fold below holds this test's events alone.
    await foldAnalytics();
    // 300 customers seen for the first time, all in the same hour on the same number.
    const hour = new Date(Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR);
    await rawQuery(
      `insert into analytics_events_pending (kind, organization_id, contact_id, phone_number_id, message_id, at)
       select 'contact', $1, gen_random_uuid(), $2, gen_random_uuid(), $3::timestamptz + make_interval(secs => n)
       from generate_series(1, 300) as n`,
      [a.organizationId, number, hour.toISOString()],
    );
    // The fold's own transaction, and what it wrote to contact_first_counts in it (counted before and
    // after: PGlite does not start its transaction counters afresh at each transaction).
    let written: { ins: number; upd: number } | undefined;
    const counters = async (tx: Executor) =>
      (
        await queryRows<{ ins: number; upd: number }>(
          tx,
          sql`select n_tup_ins::int as ins, n_tup_upd::int as upd from pg_stat_xact_user_tables where relname = 'contact_first_counts'`,
        )
      )[0]!;
    const database = {
      transaction: <T>(work: (tx: Executor) => Promise<T>) =>
        db().transaction(async (tx) => {
          const before = await counters(tx);
          const result = await work(tx);
          const after = await counters(tx);
          written ??= { ins: after.ins - before.ins, upd: after.upd - before.upd };
          return result;
        }),
    } as unknown as Database;
    await foldAnalytics(database);
    const counts = await rawQuery<{ phone_number_id: string; grain: string; contacts: string }>(
      `select phone_number_id, grain, contacts::text from contact_first_counts where organization_id = $1 order by 1, 2`,
      [a.organizationId],
    );
    // On its number and on any number (''), by hour and by day: 300 new customers each.
    expect(counts).toEqual([
      { phone_number_id: "", grain: "day", contacts: "300" },
      { phone_number_id: "", grain: "hour", contacts: "300" },
      { phone_number_id: number, grain: "day", contacts: "300" },
      { phone_number_id: number, grain: "hour", contacts: "300" },
    ]);
    // Four rows written once each (one by one, they had been updated 1,196 times in the transaction).
    expect(written).toEqual({ ins: 4, upd: 0 });
  });

  it("folds once when several instances fold at the same time", async () => {
    const now = new Date();
    const a = await tenant("Nyota Savings Sacco", [
      { wabaId: "318000000000021", phoneNumberId: "418000000000021", display: "+254 711 800 021" },
    ]);
    const people = await contactsFor(a.organizationId, 5, "13");
    const [templateId] = await templates(a.organizationId, a.numbers[0]!.wabaId);
    const specs: OutboundSpec[] = Array.from({ length: 60 }, (_, i) => ({
      contactId: people[i % 5]!.id,
      number: a.numbers[0]!,
      templateId: templateId!,
      source: "campaign",
      acceptedAt: new Date(now.getTime() - (i + 1) * 7 * MINUTE),
      charged: true,
      viaUpdate: false,
      wamid: `wamid.par.${i}`,
    }));
    await storeOutbound(a.organizationId, specs);
    await Promise.all([foldAll(), foldAll(), foldAll()]);
    await foldAll();
    const report = await analyticsReport(a.organizationId, filters("period=24h", now), now);
    expect(report.cards.sent.value).toBe(60);
    expect(report.cards.spendCents.value).toBe(60 * 200);
    expect(report.cards.uniqueContacts.value).toBe(5);
    const [pending] = await rawQuery<{ n: number }>(
      `select (select count(*) from message_stats_pending) + (select count(*) from analytics_events_pending) as n`,
    );
    expect(Number(pending!.n)).toBe(0);
  });
});

describe("GET /api/v1/analytics", () => {
  let api: Awaited<ReturnType<typeof startApiV1Server>>;
  beforeAll(async () => {
    api = await startApiV1Server();
  });
  afterAll(async () => {
    await api.close();
  });

  it("answers the page's cards and daily rows for the key's tenant, and refuses a bad period or another's number", async () => {
    const now = new Date();
    const account = await createVerifiedUser({ businessName: "Nyota Savings Sacco" });
    const cookie = await signedInCookie(account.email, account.password);
    const key = (await run(keyApiLoader, getRequest("/api/developer/api-key", { cookie }))).data.key as string;
    const organizationId = account.organization.id;
    await connectedNumber(organizationId, { wabaId: "318000000000031", phoneNumberId: "418000000000031", display: "+254 711 800 031" });
    const number: Number_ = { phoneNumberId: "418000000000031", wabaId: "318000000000031", digits: "254711800031" };
    const people = await contactsFor(organizationId, 3, "14");
    await storeOutbound(
      organizationId,
      people.map((p, i) => ({
        contactId: p.id,
        number,
        templateId: null,
        source: "api" as const,
        acceptedAt: whole(now.getTime() - (i + 1) * HOUR),
        charged: false,
        viaUpdate: false,
        wamid: `wamid.api.${i}`,
      })),
    );
    await foldAll();
    const call = (query: string) => fetch(`${api.base}/api/v1/analytics${query}`, { headers: { Authorization: `Bearer ${key}` } });

    const week = await call("?period=7d");
    expect(week.status).toBe(200);
    const body = (await week.json()) as {
      period: string;
      cards: { sent: unknown; uniqueContacts: unknown };
      daily: { messagesSent: number }[];
    };
    expect(body.period).toBe("7d");
    expect(body.cards.sent).toEqual({ value: 3, previous: 0 });
    expect(body.cards.uniqueContacts).toEqual({ value: 3, previous: 0 });
    expect(body.daily).toHaveLength(7);
    expect(body.daily.reduce((n, d) => n + d.messagesSent, 0)).toBe(3);
    // The same figures as the page's report.
    const report = await analyticsReport(organizationId, filters("period=7d", now), now);
    expect(body.daily).toEqual(report.daily);

    const refusals: [string, string][] = [
      ["?period=week", "invalid_request"],
      ["?period=custom&from=2026-02-30&to=2026-03-01", "invalid_request"],
      ["?period=custom&from=2026-03-10&to=2026-03-01", "invalid_request"],
      ["?period=7d&number=418000000000099", "invalid_request"],
      ["?period=7d&colour=red", "invalid_request"],
    ];
    for (const [query, code] of refusals) {
      const refused = await call(query);
      expect(refused.status, query).toBe(400);
      expect(((await refused.json()) as { code: string }).code, query).toBe(code);
    }
    const custom = (await (await call("?period=custom&from=2026-03-10&to=2026-03-01")).json()) as { message: string };
    expect(custom.message).toContain("The end date must be on or after the start date.");
    const foreign = (await (await call("?period=7d&number=418000000000099")).json()) as { message: string };
    expect(foreign.message).toContain("That business number is not one of yours.");
    expect((await fetch(`${api.base}/api/v1/analytics?period=7d`)).status).toBe(401);
  });
});

describe("hour-grain activity after housekeeping", () => {
  it("stays exact when old hours are pruned and a message arrives late between what is left", async () => {
    const now = new Date();
    const hour = Math.floor(now.getTime() / HOUR) * HOUR;
    const { organization } = await createVerifiedUser({ businessName: "Nyota Savings Sacco" });
    const [person] = await contactsFor(organization.id, 1, "15");
    const note = (hoursAgo: number) =>
      rawQuery(`select analytics_note_contact($1, $2, '', 'hour', $3)`, [
        organization.id,
        person!.id,
        new Date(hour - hoursAgo * HOUR).toISOString(),
      ]);
    // Active 80 hours ago and 10 hours ago; housekeeping then drops the hours older than 72.
    await note(80);
    await note(10);
    await pruneHourlyContacts();
    const [left] = await rawQuery<{ n: number }>(`select count(*)::int as n from contact_active_periods where contact_id = $1`, [
      person!.id,
    ]);
    expect(left!.n).toBe(1);
    // A message of 50 hours ago arrives late: it sits between the pruned hour and the one of 10 hours ago.
    await note(50);
    const report = await analyticsReport(organization.id, filters("period=24h", now), now);
    expect(report.cards.uniqueContacts).toEqual({ value: 1, previous: 0 });
    const day = await analyticsReport(
      organization.id,
      filters("period=24h", new Date(now.getTime() - 30 * HOUR)),
      new Date(now.getTime() - 30 * HOUR),
    );
    expect(day.cards.uniqueContacts.value).toBe(1);
  });
});
