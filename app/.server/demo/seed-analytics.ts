import { and, eq, inArray } from "drizzle-orm";
import { db } from "../infrastructure/db/client";
import { contacts, conversationEntries, conversations, messages, messageTemplates, users } from "../infrastructure/db/schema";
import { nairobiDate, nairobiMidnight, periodAt, previousPeriod } from "../domains/billing/periods";

/**
 * The demo Sacco's last 90 days on WhatsApp, so every part of Advanced Analytics has figures: its
 * core-banking system's template messages through the API (repayment reminders on weekday
 * mornings, sign-in codes all day, two dividend announcements), what Meta said of each (accepted,
 * delivered, read, or failed as undeliverable), the members who answered and the team's answers in
 * the inbox. The members are the other branches' (new contacts, numbers +254 745 3xx xxx); each who
 * wrote has a resolved conversation, reopened when they wrote again.
 *
 * Deterministic (a seeded generator, times relative to `now`), about 400 messages in a few bulk
 * inserts. seed-billing charges the template messages afterwards as the sending engine would have;
 * the analytics fold credits the replies (replied_at: by its rule, from these rows) and measures the
 * response times.
 */

const DAYS = 90;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const MEMBERS = 120;
/** The Nairobi offset: the generator reads hours and weekdays of Nairobi's clock. */
const EAT = 3 * HOUR;

const FIRST = ["Faith", "Joseph", "Mercy", "Daniel", "Lucy", "Samuel", "Beatrice", "Kevin", "Janet", "Collins", "Purity", "Dennis"];
const LAST = ["Mutiso", "Kiprotich", "Adhiambo", "Wekesa", "Nyaga", "Barasa", "Chepkoech", "Kilonzo", "Muthoni", "Okoth", "Jeptoo"];
const BRANCHES = ["eldoret", "kisumu", "nairobi", "nyeri", "machakos"];

type Language = "en" | "sw";
type Kind = "reminder" | "code" | "dividend" | "none";
type Agent = "owner" | "grace" | "brian" | "amina";

/** A member's question (or answer to a template) and the team's answer to it. */
interface Exchange {
  ask: string;
  answer: string;
  language: Language;
}

const MPESA =
  "To pay by M-Pesa: Lipa na M-Pesa, Pay Bill, business number 522522, account number your member number (e.g. NYT-20417), then the amount and your PIN. You get our SMS confirmation within minutes.";

const EXCHANGES: Record<Kind, Exchange[]> = {
  reminder: [
    {
      ask: "Asante, nitalipa Ijumaa.",
      answer: "Sawa, asante kwa kutujulisha. Malipo kupitia Paybill 522522 yanaingia papo hapo.",
      language: "sw",
    },
    {
      ask: "Nimeshalipa jana, tafadhali mthibitishe.",
      answer: "Habari! Tumepokea malipo yako ya jana, asante. Salio la mkopo limesasishwa.",
      language: "sw",
    },
    {
      ask: "Can I pay half now and the rest next week?",
      answer: "Yes, you can pay part now. Please call our loans desk on 0711 000 001 so we record the plan and no penalty applies.",
      language: "en",
    },
    { ask: "What is the account number again?", answer: MPESA, language: "en" },
    { ask: "Niaje, nitasort hii kesho asubuhi.", answer: "Poa, asante! Paybill ni 522522, account ni member number yako.", language: "sw" },
    { ask: "I have paid. Thank you.", answer: "Thank you! We have received your payment.", language: "en" },
    {
      ask: "Naomba statement ya mkopo wangu.",
      answer: "Tutakutumia statement kwa barua pepe ndani ya siku moja ya kazi.",
      language: "sw",
    },
  ],
  dividend: [
    {
      ask: "Nieleze zaidi kuhusu gawio.",
      answer: "Gawio la asilimia 12 litalipwa kwenye akaunti yako ya akiba tarehe 20. Unaweza kulitoa kupitia M-Pesa.",
      language: "sw",
    },
    { ask: "Gawio litaingia lini?", answer: "Litaingia tarehe 20 mwezi huu, kwenye akaunti yako ya akiba.", language: "sw" },
    {
      ask: "Can I use my dividend to clear my loan?",
      answer: "Yes. Reply with your member number and we will apply it to your loan on payment day.",
      language: "en",
    },
  ],
  code: [
    {
      ask: "The code expired before I could use it.",
      answer: "Sorry about that. Ask for a new code in the app; each code lasts 10 minutes.",
      language: "en",
    },
    { ask: "Sijapokea code nyingine.", answer: "Pole! Tafadhali jaribu tena baada ya dakika moja.", language: "sw" },
  ],
  none: [
    { ask: "Habari, naomba kujua salio la akiba yangu.", answer: "Habari! Salio la akiba yako ni KES 38,400 kufikia leo.", language: "sw" },
    {
      ask: "What are your opening hours on Saturday?",
      answer: "We are open Monday to Friday, 8 am to 5 pm, and Saturday, 9 am to 1 pm. Closed on Sundays and public holidays.",
      language: "en",
    },
    {
      ask: "Where is your Eldoret office?",
      answer: "Our Eldoret office is on Uganda Road, Zion Mall, 1st floor. Open Monday to Friday, 8 am to 5 pm.",
      language: "en",
    },
    {
      ask: "Boss, loan yangu imefika wapi?",
      answer: "Habari! Mkopo wako uko kwenye hatua ya mwisho ya idhini; utapata SMS ukiingia.",
      language: "sw",
    },
    {
      ask: "I sent money to the wrong account number.",
      answer:
        "Wrong or double M-Pesa payments are refunded to the paying number within 3 working days. Please send the M-Pesa code, the amount and the date.",
      language: "en",
    },
  ],
};
const THANKS: Record<Language, { ask: string; answer: string }[]> = {
  sw: [
    { ask: "Asante sana!", answer: "Karibu sana! Tuko hapa kukusaidia." },
    { ask: "Poa, shukran!", answer: "Karibu! Siku njema." },
  ],
  en: [{ ask: "Thanks a lot.", answer: "Thank you for contacting Nyota Sacco. Is there anything else we can help you with?" }],
};

/** mulberry32: a small seeded generator, so every start seeds the same history. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!,
    chance: (p: number) => next() < p,
    /** Between `min` and `max`, most of them near `min` (log-uniform): waits and reading times. */
    skewed: (min: number, max: number) => min * Math.exp(next() * Math.log(max / min)),
  };
}

type MessageRow = typeof messages.$inferInsert;

interface Member {
  name: string;
  phone: string;
  language: Language;
}

/** A template message Meta accepted, with what happened to it. */
interface Sent {
  member: number;
  kind: Exclude<Kind, "none">;
  row: MessageRow;
  readAt: number | null;
}

/** A member writing (a reply to `to`, or of their own accord), the team's answer, and perhaps thanks and a last word. */
interface Thread {
  member: number;
  start: number;
  end: number;
  rows: MessageRow[];
  agent: Agent;
}

// long: a year of demo figures made in one pass over the days; every step adds to the same counters and row lists, which pieces would only pass around
export async function seedAnalyticsHistory(input: {
  organizationId: string;
  ownerId: string;
  phoneNumberId: string;
  /** The business number's digits (context.from of a member's reply). */
  businessDigits: string;
  now: number;
}) {
  const { organizationId, phoneNumberId, businessDigits, now } = input;
  const random = generator(20_261_124);
  const latest = now - 5 * MINUTE;

  const templates = await db()
    .select({ id: messageTemplates.id, name: messageTemplates.name })
    .from(messageTemplates)
    .where(eq(messageTemplates.organizationId, organizationId));
  const templateId = (name: string) => templates.find((t) => t.name === name)?.id ?? null;
  const team = await db()
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(
      and(
        eq(users.organizationId, organizationId),
        inArray(users.email, ["grace.wanjiru@nyota-sacco.demo", "brian.otieno@nyota-sacco.demo", "amina.hassan@nyota-sacco.demo"]),
      ),
    );
  const agentId = (agent: Agent) =>
    agent === "owner" ? input.ownerId : (team.find((u) => u.email.startsWith(`${agent}.`))?.id ?? input.ownerId);

  const members: Member[] = Array.from({ length: MEMBERS }, (_, i) => ({
    name: `${FIRST[i % FIRST.length]} ${LAST[(i * 5 + Math.floor(i / FIRST.length)) % LAST.length]}`,
    phone: `+2547453${String(10_000 + i * 37).slice(-5)}`,
    language: i % 3 === 0 ? "en" : "sw",
  }));

  let counter = 0;
  const wamid = () => `wamid.DEMOAN${(++counter).toString(36).padStart(6, "0")}${Math.floor(random.next() * 1e12).toString(36)}`;
  const first = (m: Member) => m.name.split(" ")[0]!;

  // The Sacco moved to prepaid on the 1st of last month and first topped its wallet up on the 3rd
  // (seed-billing): nothing could be sent in between. Nothing before its first day either.
  const lastMonth = previousPeriod(periodAt(new Date(now)));
  const unfunded = new Set([0, 1, 2].map((n) => nairobiDate(new Date(nairobiMidnight(lastMonth.start).getTime() + n * DAY))));
  const signedUp = nairobiMidnight(previousPeriod(previousPeriod(lastMonth)).start).getTime() + DAY;

  const sent: Sent[] = [];
  /** A template message to a member at `at` (Meta's acceptance), with Meta's later statuses. */
  const send = (kind: Sent["kind"], memberIndex: number, at: number) => {
    if (at > latest || at < signedUp) return;
    const member = members[memberIndex]!;
    const outcome = random.next();
    const failed = outcome < (kind === "dividend" ? 0.04 : 0.02);
    const readShare = kind === "code" ? 0.9 : kind === "dividend" ? 0.55 : 0.72;
    const onlySent = !failed && outcome > 0.97;
    const delivered = failed || onlySent ? null : at + random.int(2, 40) * 1000;
    const readDelay = kind === "code" ? random.skewed(0.2, 4) * MINUTE : random.skewed(1, 360) * MINUTE;
    let read = delivered !== null && random.chance(readShare) ? delivered + readDelay : null;
    if (read !== null && read > latest) read = null;
    const deliveredAt = delivered !== null && delivered <= latest ? delivered : null;
    const status = failed ? "failed" : read !== null ? "read" : deliveredAt !== null ? "delivered" : "sent";
    const graph = templateGraph(kind, member, at);
    sent.push({
      member: memberIndex,
      kind,
      readAt: read,
      row: {
        organizationId,
        direction: "outbound",
        status,
        body: graph.body,
        wamid: wamid(),
        phoneNumberId,
        messageType: "template",
        payload: graph.payload,
        source: "api",
        recipientPhone: member.phone,
        recipientWaId: member.phone.slice(1),
        templateId: templateId(graph.template),
        attempts: 1,
        createdAt: new Date(at - random.int(300, 1500)),
        acceptedAt: new Date(at),
        sentAt: failed ? null : new Date(at + 1000),
        deliveredAt: deliveredAt === null ? null : new Date(deliveredAt),
        readAt: read === null ? null : new Date(read),
        failedAt: failed ? new Date(at + random.int(2, 20) * 1000) : null,
        errorCode: failed ? 131026 : null,
        errorTitle: failed ? "Message undeliverable" : null,
        pricingCategory: kind === "code" ? "authentication" : kind === "dividend" ? "marketing" : "utility",
        pricingType: "regular",
        billable: !failed,
      },
    });
  };

  const pickMembers = (count: number) => {
    const chosen = new Set<number>();
    while (chosen.size < Math.min(count, MEMBERS)) chosen.add(random.int(0, MEMBERS - 1));
    return [...chosen];
  };
  const spontaneous: { member: number; at: number }[] = [];
  for (let d = DAYS - 1; d >= 0; d--) {
    const date = nairobiDate(new Date(now - d * DAY));
    const midnight = nairobiMidnight(date).getTime();
    const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
    if (!unfunded.has(date)) {
      // The core-banking system's morning run: the members whose instalment falls due.
      if (weekday >= 1 && weekday <= 5)
        pickMembers(random.int(1, 3)).forEach((m, i) => send("reminder", m, midnight + 8 * HOUR + i * random.int(3, 9) * 1000));
      // Sign-in codes, as members open the app: mostly by day.
      for (let n = random.int(0, 2); n > 0; n--) send("code", random.int(0, MEMBERS - 1), midnight + dayTime(random));
      // The dividend announcements: one in each half of the period, at ten in the morning.
      if (d === 61 || d === 11)
        pickMembers(18 + (d % 5)).forEach((m, i) => send("dividend", m, midnight + 10 * HOUR + i * random.int(200, 400)));
    }
    if (random.chance(0.2)) spontaneous.push({ member: random.int(0, MEMBERS - 1), at: midnight + dayTime(random) });
  }

  // The members who wrote: replies to what they read, and messages of their own accord.
  const candidates: { member: number; at: number; kind: Kind; quote: string | null }[] = [];
  for (const s of sent) {
    if (s.readAt === null) continue;
    const share = s.kind === "reminder" ? 0.24 : s.kind === "dividend" ? 0.18 : 0.02;
    if (!random.chance(share)) continue;
    candidates.push({
      member: s.member,
      at: s.readAt + random.skewed(1, 90) * MINUTE,
      kind: s.kind,
      quote: random.chance(0.3) ? s.row.wamid! : null,
    });
  }
  for (const s of spontaneous) candidates.push({ ...s, kind: "none", quote: null });
  candidates.sort((a, b) => a.at - b.at);

  // A member's threads never overlap: one written while the last is still open is left out.
  const threads: Thread[] = [];
  const busyUntil = new Map<number, number>();
  for (const candidate of candidates) {
    if (candidate.at <= (busyUntil.get(candidate.member) ?? 0)) continue;
    const thread = exchange(candidate);
    if (!thread || thread.end > latest) continue;
    threads.push(thread);
    busyUntil.set(candidate.member, thread.end);
  }

  function exchange(c: (typeof candidates)[number]): Thread | null {
    const member = members[c.member]!;
    const pair = random.pick(EXCHANGES[c.kind].filter((e) => e.language === member.language).concat(EXCHANGES[c.kind]));
    const agent: Agent = random.pick(["brian", "brian", "amina", "amina", "grace", "owner"] as const);
    const rows: MessageRow[] = [];
    const answered = answerTime(c.at, random);
    rows.push(inbound(member, c.at, pair.ask, c.quote, answered));
    rows.push(agentMessage(member, answered, pair.answer, agent));
    let end = answered;
    if (random.chance(0.35)) {
      const thanks = random.pick(THANKS[pair.language]);
      const at = answered + random.skewed(2, 30) * MINUTE;
      const closing = at + random.skewed(1, 10) * MINUTE;
      rows.push(inbound(member, at, thanks.ask, null, closing));
      rows.push(agentMessage(member, closing, thanks.answer, agent));
      end = closing;
    }
    // Resolved a few minutes after the last word.
    return { member: c.member, start: c.at, end: end + random.int(2, 20) * MINUTE, rows, agent };
  }

  function inbound(member: Member, at: number, text: string, quote: string | null, answeredAt: number): MessageRow {
    const id = wamid();
    const payload = {
      from: member.phone.slice(1),
      id,
      timestamp: String(Math.floor(at / 1000)),
      ...(quote ? { context: { from: businessDigits, id: quote } } : {}),
      type: "text",
      text: { body: text },
    };
    return {
      organizationId,
      direction: "inbound",
      status: "received",
      body: text,
      wamid: id,
      phoneNumberId,
      messageType: "text",
      payload,
      sentAt: new Date(at),
      createdAt: new Date(at + 1000),
      recipientPhone: member.phone,
      // The agent opened it just before answering.
      readAt: new Date(Math.max(at + 10_000, answeredAt - random.int(20, 90) * 1000)),
    };
  }

  function agentMessage(member: Member, at: number, text: string, agent: Agent): MessageRow {
    const status = at + 45_000 > latest ? "delivered" : random.chance(0.85) ? "read" : random.chance(0.7) ? "delivered" : "sent";
    const later = (seconds: number) => new Date(at + seconds * 1000);
    return {
      organizationId,
      direction: "outbound",
      status,
      body: text,
      wamid: wamid(),
      phoneNumberId,
      messageType: "text",
      payload: {
        messaging_product: "whatsapp",
        recipient_type: "individual",
        to: member.phone,
        type: "text",
        text: { body: text, preview_url: false },
      },
      source: "inbox",
      recipientPhone: member.phone,
      recipientWaId: member.phone.slice(1),
      sentBy: agentId(agent),
      attempts: 1,
      createdAt: new Date(at),
      acceptedAt: new Date(at),
      sentAt: later(1),
      deliveredAt: status === "sent" ? null : later(3),
      readAt: status === "read" ? later(random.int(20, 600)) : null,
      // Answers inside the member's window are free service messages.
      pricingCategory: "service",
      pricingType: "free_customer_service",
      billable: false,
    };
  }

  function templateGraph(kind: Sent["kind"], member: Member, at: number) {
    const envelope = { messaging_product: "whatsapp", recipient_type: "individual", to: member.phone, type: "template" };
    if (kind === "code") {
      const code = String(random.int(100_000, 999_999));
      return {
        template: "otp_verification",
        body: `*${code}* is your verification code. For your security, do not share this code.`,
        payload: {
          ...envelope,
          template: {
            name: "otp_verification",
            language: { code: "en" },
            components: [
              { type: "body", parameters: [{ type: "text", text: code }] },
              { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: code }] },
            ],
          },
        },
      };
    }
    if (kind === "dividend")
      return {
        template: "dividend_announcement_sw",
        body: `Habari ${first(member)}! Gawio la mwaka huu la asilimia 12 limetangazwa. Asante kwa kuwa mwanachama.`,
        payload: {
          ...envelope,
          template: {
            name: "dividend_announcement_sw",
            language: { code: "sw" },
            components: [
              {
                type: "body",
                parameters: [
                  { type: "text", text: first(member) },
                  { type: "text", text: "12" },
                ],
              },
            ],
          },
        },
      };
    const due = dueWords(at + 3 * DAY);
    const amount = (random.int(12, 180) * 250).toLocaleString("en-US");
    const account = `NYT-${20_000 + ((members.indexOf(member) * 53) % 9000)}`;
    return {
      template: "loan_repayment_reminder",
      body: `Habari ${first(member)}, your loan repayment of KES ${amount} is due on ${due}. Pay via M-Pesa Paybill 522522, account ${account}. Thank you for saving with Nyota.`,
      payload: {
        ...envelope,
        template: {
          name: "loan_repayment_reminder",
          language: { code: "en" },
          components: [
            { type: "header", parameters: [{ type: "text", text: due.replace(/ \d{4}$/, "") }] },
            {
              type: "body",
              parameters: [first(member), amount, due, account].map((text) => ({ type: "text", text })),
            },
            { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: account }] },
          ],
        },
      },
    };
  }

  // Everything in time order, so the arrival order (seq) and the fold's events follow the clock.
  const time = (row: MessageRow) => (row.direction === "inbound" ? row.sentAt! : row.acceptedAt!).getTime();
  const planned = [
    ...sent.map((s) => ({ member: s.member, row: s.row })),
    ...threads.flatMap((t) => t.rows.map((row) => ({ member: t.member, row }))),
  ].sort((a, b) => time(a.row) - time(b.row));
  const lastInbound = new Map<number, number>();
  const lastMessage = new Map<number, number>();
  for (const { member, row } of planned) {
    if (row.direction === "inbound") lastInbound.set(member, row.sentAt!.getTime());
    lastMessage.set(member, Math.max(lastMessage.get(member) ?? 0, (row.sentAt ?? row.createdAt)!.getTime()));
  }

  const saved = await db()
    .insert(contacts)
    .values(
      members.map((member, i) => ({
        organizationId,
        name: member.name,
        phone: member.phone,
        waId: member.phone.slice(1),
        language: member.language,
        tags: [BRANCHES[i % BRANCHES.length]!],
        createdAt: new Date(now - (DAYS + 10 + (i % 60)) * DAY),
        lastSeenAt: lastInbound.has(i) ? new Date(lastInbound.get(i)!) : null,
      })),
    )
    .returning({ id: contacts.id, phone: contacts.phone });
  const idOfPhone = new Map(saved.map((c) => [c.phone, c.id]));
  const contactId = (member: number) => idOfPhone.get(members[member]!.phone)!;
  const rows = planned.map(({ member, row }) => ({ ...row, contactId: contactId(member) }));
  for (let i = 0; i < rows.length; i += 500)
    await db()
      .insert(messages)
      .values(rows.slice(i, i + 500));

  // One conversation per member who wrote: resolved after each thread, reopened when they wrote again.
  const byMember = new Map<number, Thread[]>();
  for (const thread of threads) byMember.set(thread.member, [...(byMember.get(thread.member) ?? []), thread]);
  const written = [...byMember.entries()];
  if (!written.length) return;
  const opened = await db()
    .insert(conversations)
    .values(
      written.map(([member, own]) => ({
        organizationId,
        phoneNumberId,
        contactId: contactId(member),
        lastInboundAt: new Date(lastInbound.get(member)!),
        lastMessageAt: new Date(lastMessage.get(member)!),
        createdAt: new Date(own[0]!.start),
        status: "resolved" as const,
        assignedTo: agentId(own.at(-1)!.agent),
        resolvedAt: new Date(own.at(-1)!.end),
        unreadCount: 0,
      })),
    )
    .returning({ id: conversations.id, contactId: conversations.contactId });
  const conversationOf = new Map(opened.map((c) => [c.contactId, c.id]));
  await db()
    .insert(conversationEntries)
    .values(
      written.flatMap(([member, own]) =>
        own.flatMap((thread, i) => {
          const conversationId = conversationOf.get(contactId(member))!;
          const resolved = {
            organizationId,
            conversationId,
            kind: "resolved" as const,
            actorId: agentId(thread.agent),
            createdAt: new Date(thread.end),
          };
          return i === 0
            ? [resolved]
            : [{ organizationId, conversationId, kind: "reopened" as const, actorId: null, createdAt: new Date(thread.start) }, resolved];
        }),
      ),
    );
}

/** A time of day in ms after midnight: a member's own moment, mostly between 7:00 and 21:00 (Nairobi). */
function dayTime(random: ReturnType<typeof generator>) {
  const hour = random.chance(0.9) ? random.int(7, 20) : random.int(0, 23);
  return hour * HOUR + random.int(0, 59) * MINUTE + random.int(0, 59) * 1000;
}

/**
 * When the team answers a member who wrote at `at`: within minutes while the office is staffed
 * (Monday to Saturday, 7:00 to 20:00 Nairobi), else soon after it opens.
 */
function answerTime(at: number, random: ReturnType<typeof generator>) {
  const open = (t: number) => {
    const local = new Date(t + EAT);
    const hour = local.getUTCHours();
    return local.getUTCDay() !== 0 && hour >= 7 && hour < 20;
  };
  if (open(at)) return at + random.skewed(1, 45) * MINUTE;
  let t = Math.ceil(at / HOUR) * HOUR;
  while (!open(t)) t += HOUR;
  return t + random.skewed(3, 40) * MINUTE;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "15 December 2026": the Nairobi date of an instant, as the reminders write it. */
function dueWords(at: number) {
  const [year, month, day] = nairobiDate(new Date(at)).split("-").map(Number) as [number, number, number];
  return `${day} ${MONTHS[month - 1]} ${year}`;
}
