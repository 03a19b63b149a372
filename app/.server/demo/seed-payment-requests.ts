import { and, asc, eq, inArray } from "drizzle-orm";
import { db } from "../infrastructure/db/client";
import {
  contacts,
  conversations,
  flows,
  messages,
  mpesaShortcodes,
  orderItems,
  orders,
  paymentAttempts,
  paymentC2bReceipts,
  paymentRequests,
  products,
  users,
  type PaymentRequestSource,
} from "../infrastructure/db/schema";
import { m } from "~/paraglide/messages";

/**
 * The demo Sacco's payment requests (issue 76, decision 144): what asking in the chat leaves after a
 * few weeks, so /analytics' Payments section, the threads' cards, the orders and Settings → Payments
 * have something real. Written as rows (times in the past, as the other seeds' history), each as the
 * payments domain leaves it: the asking message, every prompt with Daraja's answer (paid, 1, 1032,
 * 1037, 2001) and what the customer was told, a paid request's one receipt (its prompt's, or its C2B
 * confirmation's) and its receipt message, an expired, a cancelled and an open one, a cart's order
 * paid or awaiting payment with its request. tests/integration/payments-demo.test.ts holds every
 * invariant real data keeps.
 */

type Outcome =
  /** `receipt`: the last seven characters of M-Pesa's receipt; the first three say its day (receiptOn). */
  | { kind: "paid"; via: "stk" | "c2b"; receipt: string; afterMinutes: number; paidKes?: number }
  | { kind: "expired" }
  | { kind: "cancelled"; afterMinutes: number }
  | { kind: "open" };

interface DemoRequest {
  customer: string;
  amountKes: number;
  description: string;
  reference: string;
  source: PaymentRequestSource;
  /** Who asked: the owner, the first agent, or nobody (flows, automations, the API). */
  by: "owner" | "agent" | null;
  madeHoursAgo: number;
  expiresAfterHours: number;
  /** Each prompt, in order: Daraja's ResultCode and how long after the request it was answered. */
  prompts: { code: 0 | 1 | 1032 | 1037 | 2001; afterMinutes: number }[];
  outcome: Outcome;
  /** A cart's request: the order's lines (retailer id, quantity). */
  order?: { wamid: string; lines: [string, number][] };
}

/** Daraja's words for each ResultCode, as the M-Pesa sandbox (and Safaricom) say them. */
const DARAJA_DESC: Record<number, string> = {
  0: "The service request is processed successfully.",
  1: "The balance is insufficient for the transaction.",
  1032: "Request cancelled by user",
  1037: "DS timeout user cannot be reached",
  2001: "The initiator information is invalid.",
};

export const DEMO_PAYMENT_REQUESTS: DemoRequest[] = [
  {
    customer: "Otieno Ochieng",
    amountKes: 2500,
    description: "Share capital top-up",
    reference: "SHR2500",
    source: "inbox",
    by: "owner",
    madeHoursAgo: 6 * 24,
    expiresAfterHours: 24,
    prompts: [{ code: 0, afterMinutes: 3 }],
    outcome: { kind: "paid", via: "stk", receipt: "7QX2M4D", afterMinutes: 3 },
  },
  {
    customer: "Fatuma Hassan",
    amountKes: 1000,
    description: "Membership registration fee",
    reference: "REG1000",
    source: "inbox",
    by: "agent",
    madeHoursAgo: 12 * 24,
    expiresAfterHours: 24,
    // A wrong PIN first, then paid on "Try again".
    prompts: [
      { code: 2001, afterMinutes: 2 },
      { code: 0, afterMinutes: 6 },
    ],
    outcome: { kind: "paid", via: "stk", receipt: "4K8PR1V", afterMinutes: 6 },
  },
  {
    customer: "Mwangi Njoroge",
    amountKes: 4500,
    description: "Loan repayment, November",
    reference: "LN0042",
    source: "contact",
    by: "agent",
    madeHoursAgo: 20 * 24,
    expiresAfterHours: 72,
    // Paid to the till by hand with the reference: settled by its C2B confirmation.
    prompts: [],
    outcome: { kind: "paid", via: "c2b", receipt: "B3N6W9Q", afterMinutes: 95 },
  },
  {
    customer: "Kiprop Cheruiyot",
    amountKes: 500,
    description: "Emergency loan processing fee",
    reference: "DHR500",
    source: "flow",
    by: null,
    madeHoursAgo: 3 * 24,
    expiresAfterHours: 24,
    prompts: [{ code: 0, afterMinutes: 2 }],
    outcome: { kind: "paid", via: "stk", receipt: "2W5HC7J", afterMinutes: 2 },
  },
  {
    customer: "Njeri Wambui",
    amountKes: 3000,
    description: "Holiday savings deposit",
    reference: "HOL3000",
    source: "api",
    by: null,
    madeHoursAgo: 9 * 24,
    expiresAfterHours: 48,
    // Paid to the till by hand, but KES 2,000 of the 3,000 asked: flagged, not accepted silently.
    prompts: [],
    outcome: { kind: "paid", via: "c2b", receipt: "8R2T5XE", afterMinutes: 240, paidKes: 2000 },
  },
  {
    customer: "Achieng Atieno",
    amountKes: 1650,
    description: "Order from the shop",
    reference: "",
    source: "order",
    by: null,
    madeHoursAgo: 4 * 24,
    expiresAfterHours: 24,
    prompts: [{ code: 0, afterMinutes: 4 }],
    outcome: { kind: "paid", via: "stk", receipt: "6P3LZ8N", afterMinutes: 4 },
    order: {
      wamid: "wamid.demo-order-achieng-1",
      lines: [
        ["NYOTA-UMBRELLA", 1],
        ["PASSBOOK-COVER", 1],
      ],
    },
  },
  {
    customer: "Omondi Otieno",
    amountKes: 2000,
    description: "Share capital top-up",
    reference: "SHR2000",
    source: "inbox",
    by: "owner",
    madeHoursAgo: 5 * 24,
    expiresAfterHours: 24,
    // The phone was off, then no answer: expired unpaid.
    prompts: [{ code: 1037, afterMinutes: 2 }],
    outcome: { kind: "expired" },
  },
  {
    customer: "Mutua Musyoka",
    amountKes: 7500,
    description: "School fees loan deposit",
    reference: "SCH7500",
    source: "api",
    by: null,
    madeHoursAgo: 8 * 24,
    expiresAfterHours: 24,
    prompts: [
      { code: 1, afterMinutes: 1 },
      { code: 1032, afterMinutes: 30 },
    ],
    outcome: { kind: "expired" },
  },
  {
    customer: "Chebet Rotich",
    amountKes: 800,
    description: "Passbook replacement",
    reference: "PBK800",
    source: "inbox",
    by: "agent",
    madeHoursAgo: 2 * 24,
    expiresAfterHours: 24,
    // She cancelled the prompt; the agent then took the request back.
    prompts: [{ code: 1032, afterMinutes: 1 }],
    outcome: { kind: "cancelled", afterMinutes: 20 },
  },
  {
    customer: "Akinyi Odhiambo",
    amountKes: 1200,
    description: "Order from the shop",
    reference: "",
    source: "order",
    by: "owner",
    madeHoursAgo: 2,
    expiresAfterHours: 24,
    prompts: [],
    outcome: { kind: "open" },
    order: { wamid: "wamid.demo-order-akinyi-1", lines: [["NYOTA-UMBRELLA", 1]] },
  },
  {
    customer: "Kamau Gitau",
    amountKes: 1500,
    description: "Annual subscription",
    reference: "SUB1500",
    source: "inbox",
    by: "owner",
    madeHoursAgo: 1,
    expiresAfterHours: 24,
    prompts: [],
    outcome: { kind: "open" },
  },
];

/** A till payment that named no request (the payer typed the account number wrong): Settings → Payments lists it. */
export const DEMO_UNMATCHED_RECEIPT = {
  transId: "H9M2RAE",
  amountKes: 1500,
  msisdn: "2547 ***** 345",
  payerName: "KAMAU",
  billRef: "SUB150",
  hoursAgo: 0.5,
};

interface Place {
  organizationId: string;
  shortcode: { id: string; kind: "paybill" | "till"; businessShortCode: string; tillNumber: string | null };
  business: string;
  members: { owner: string; agent: string | null };
  flowId: string | null;
  now: number;
}

export async function seedPaymentRequests(organizationId: string, business: string, now = Date.now()) {
  const [shortcode] = await db()
    .select({
      id: mpesaShortcodes.id,
      kind: mpesaShortcodes.kind,
      businessShortCode: mpesaShortcodes.businessShortCode,
      tillNumber: mpesaShortcodes.tillNumber,
    })
    .from(mpesaShortcodes)
    .where(and(eq(mpesaShortcodes.organizationId, organizationId), eq(mpesaShortcodes.isDefault, true)))
    .limit(1);
  if (!shortcode) return;
  const members = await db()
    .select({ id: users.id, role: users.orgRole })
    .from(users)
    .where(eq(users.organizationId, organizationId))
    .orderBy(asc(users.createdAt));
  const [flow] = await db().select({ id: flows.id }).from(flows).where(eq(flows.organizationId, organizationId)).limit(1);
  const place: Place = {
    organizationId,
    shortcode,
    business,
    members: { owner: members.find((u) => u.role === "owner")!.id, agent: members.find((u) => u.role === "agent")?.id ?? null },
    flowId: flow?.id ?? null,
    now,
  };
  for (const [i, request] of DEMO_PAYMENT_REQUESTS.entries()) await seedOne(place, request, i);
  const paidAt = new Date(now - DEMO_UNMATCHED_RECEIPT.hoursAgo * 3600_000);
  await db()
    .insert(paymentC2bReceipts)
    .values({
      organizationId,
      shortcodeId: shortcode.id,
      transId: receiptOn(paidAt, DEMO_UNMATCHED_RECEIPT.transId),
      amountKes: DEMO_UNMATCHED_RECEIPT.amountKes,
      msisdn: DEMO_UNMATCHED_RECEIPT.msisdn,
      payerName: DEMO_UNMATCHED_RECEIPT.payerName,
      billRef: DEMO_UNMATCHED_RECEIPT.billRef,
      paidAt,
      unmatchedReason: "no_request",
      createdAt: new Date(paidAt.getTime() + 2000),
    });
}

async function customerOf(organizationId: string, name: string) {
  const [row] = await db()
    .select({
      contactId: contacts.id,
      phone: contacts.phone,
      language: contacts.language,
      conversationId: conversations.id,
      phoneNumberId: conversations.phoneNumberId,
    })
    .from(contacts)
    .innerJoin(conversations, eq(conversations.contactId, contacts.id))
    .where(and(eq(contacts.organizationId, organizationId), eq(contacts.name, name)))
    .limit(1);
  return row;
}

/** The cart's order, its items at the products' prices, its total their sum (whole shillings: M-Pesa takes no cents). */
async function seedOrder(
  place: Place,
  order: NonNullable<DemoRequest["order"]>,
  customer: { contactId: string; conversationId: string },
  at: Date,
) {
  const listed = await db()
    .select()
    .from(products)
    .where(
      and(
        eq(products.organizationId, place.organizationId),
        inArray(
          products.retailerId,
          order.lines.map(([sku]) => sku),
        ),
      ),
    );
  const lines = order.lines.map(([sku, quantity]) => ({ product: listed.find((p) => p.retailerId === sku)!, quantity }));
  const [saved] = await db()
    .insert(orders)
    .values({
      organizationId: place.organizationId,
      contactId: customer.contactId,
      conversationId: customer.conversationId,
      wamid: order.wamid,
      catalogId: "demo",
      totalCents: lines.reduce((sum, l) => sum + l.quantity * l.product.priceCents, 0),
      receivedAt: new Date(at.getTime() - 60_000),
      createdAt: new Date(at.getTime() - 60_000),
    })
    .returning();
  await db()
    .insert(orderItems)
    .values(
      lines.map((l, position) => ({
        orderId: saved!.id,
        position,
        retailerId: l.product.retailerId,
        productId: l.product.id,
        name: l.product.name,
        quantity: l.quantity,
        unitPriceCents: l.product.priceCents,
      })),
    );
  return saved!;
}

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
/**
 * An M-Pesa receipt as Safaricom makes them (and the sandbox, sandbox/mpesa/daraja-format.ts): a
 * letter for the year (A = 2006), one for the month, the day (1-9, then A = 10), then seven of its own.
 */
export function receiptOn(at: Date, own: string) {
  const eat = new Date(at.getTime() + 3 * 3600_000);
  const day = eat.getUTCDate();
  return `${LETTERS[(eat.getUTCFullYear() - 2006) % 26]}${LETTERS[eat.getUTCMonth()]}${day < 10 ? day : LETTERS[day - 10]}${own}`;
}

const minutes = (from: Date, n: number) => new Date(from.getTime() + n * 60_000);

function kes(amount: number, locale: "en" | "sw" | "fr") {
  return new Intl.NumberFormat(locale === "fr" ? "fr-FR" : "en-KE", { maximumFractionDigits: 0 }).format(amount);
}

type Line = { body: string; at: Date; source: string; sentBy: string | null; buttons?: { id: string; title: string }[] };

/** One request being written: its row's id and what its messages say, in its customer's language. */
interface Made {
  id: string;
  index: number;
  createdAt: Date;
  expiresAt: Date;
  locale: "en" | "sw" | "fr";
  amountKes: number;
  description: string;
  reference: string;
  /** The customer's number as Daraja writes it (2547…). */
  phone: string;
  thread: Line[];
}

async function seedOne(place: Place, request: DemoRequest, index: number) {
  const customer = await customerOf(place.organizationId, request.customer);
  if (!customer?.phone) return;
  const createdAt = new Date(place.now - request.madeHoursAgo * 3600_000);
  const expiresAt = new Date(createdAt.getTime() + request.expiresAfterHours * 3600_000);
  const locale = customer.language === "sw" || customer.language === "fr" ? customer.language : "en";
  const order = request.order ? await seedOrder(place, request.order, customer, createdAt) : null;
  const reference = order ? `ORD${order.id.replace(/-/g, "").slice(0, 8).toUpperCase()}` : request.reference;
  const description = order ? m.shop_order_pay_description({ reference }, { locale: "en" }) : request.description;
  const amountKes = order ? Math.ceil(order.totalCents / 100) : request.amountKes;
  const createdBy = request.by === "owner" ? place.members.owner : request.by === "agent" ? place.members.agent : null;
  const [saved] = await db()
    .insert(paymentRequests)
    .values({
      organizationId: place.organizationId,
      shortcodeId: place.shortcode.id,
      contactId: customer.contactId,
      conversationId: customer.conversationId,
      amountKes,
      description,
      reference,
      expiresAt,
      createdBy,
      source: request.source,
      sourceId: request.source === "flow" ? place.flowId : order ? order.id : null,
      createdAt,
      updatedAt: createdAt,
    })
    .returning({ id: paymentRequests.id });
  const id = saved!.id;
  const how =
    place.shortcode.kind === "till"
      ? m.payreq_how_till({ number: place.shortcode.tillNumber || place.shortcode.businessShortCode }, { locale })
      : m.payreq_how_paybill({ number: place.shortcode.businessShortCode }, { locale });
  const made: Made = {
    id,
    index,
    createdAt,
    expiresAt,
    locale,
    amountKes,
    description,
    reference,
    phone: customer.phone.slice(1),
    thread: [
      {
        body: m.payreq_ask_body({ business: place.business, amount: kes(amountKes, locale), description, how, reference }, { locale }),
        at: createdAt,
        source: request.source === "api" ? "api" : createdBy ? "inbox" : "automation",
        sentBy: createdBy,
        buttons: [
          { id: `payreq:${id}:pay`, title: m.payreq_button_pay({}, { locale }) },
          { id: `payreq:${id}:other`, title: m.payreq_button_other({}, { locale }) },
        ],
      },
    ],
  };
  await seedPrompts(place, request, made);
  await seedOutcome(place, request, made);
  // The order follows its request, as the shop's reaction to a closed request leaves it.
  if (order)
    await db()
      .update(orders)
      .set({ status: request.outcome.kind === "paid" ? "paid" : "awaiting_payment", paymentRequestId: id })
      .where(eq(orders.id, order.id));
  const messageIds = await storeThread(place, customer, made.thread, index);
  await db().update(paymentRequests).set({ messageId: messageIds[0]! }).where(eq(paymentRequests.id, id));
}

/** Each prompt with Daraja's answer; a failed one told to the customer with "Try again". */
async function seedPrompts(place: Place, request: DemoRequest, made: Made) {
  const { id, index, phone, locale } = made;
  for (const [n, prompt] of request.prompts.entries()) {
    const finished = minutes(made.createdAt, prompt.afterMinutes);
    await db()
      .insert(paymentAttempts)
      .values({
        organizationId: place.organizationId,
        requestId: id,
        phone,
        checkoutRequestId: `ws_CO_DEMO${String(index).padStart(2, "0")}${n}${phone.slice(3)}`,
        merchantRequestId: `${29100 + index}-${34620500 + index * 10 + n}-1`,
        state: prompt.code === 0 ? "paid" : "failed",
        resultCode: String(prompt.code),
        resultDesc: DARAJA_DESC[prompt.code]!,
        checks: 0,
        createdAt: minutes(made.createdAt, prompt.afterMinutes - 0.5),
        finishedAt: finished,
      });
    if (prompt.code !== 0)
      made.thread.push({
        body: failureText(prompt.code, made.amountKes, locale),
        at: minutes(finished, 0.1),
        source: "system",
        sentBy: null,
        buttons: [{ id: `payreq:${id}:retry`, title: m.payreq_button_retry({}, { locale }) }],
      });
  }
}

/** How it closed (paid with its one receipt, expired, cancelled) or that it is still open, and what the customer was told. */
async function seedOutcome(place: Place, request: DemoRequest, made: Made) {
  const { id, phone, locale, amountKes, description } = made;
  const outcome = request.outcome;
  if (outcome.kind === "paid") {
    const paidAt = minutes(made.createdAt, outcome.afterMinutes);
    const paidKes = outcome.paidKes ?? amountKes;
    const receipt = receiptOn(paidAt, outcome.receipt);
    const masked = `${phone.slice(0, 4)} ***** ${phone.slice(-3)}`;
    await db()
      .update(paymentRequests)
      .set({
        status: "paid",
        paidVia: outcome.via,
        paidReceipt: receipt,
        paidAmountKes: paidKes,
        paidPhone: outcome.via === "stk" ? phone : masked,
        paidAt,
        amountMismatch: paidKes !== amountKes,
        closedAt: minutes(paidAt, 0.05),
        updatedAt: minutes(paidAt, 0.05),
      })
      .where(eq(paymentRequests.id, id));
    if (outcome.via === "c2b")
      await db()
        .insert(paymentC2bReceipts)
        .values({
          organizationId: place.organizationId,
          shortcodeId: place.shortcode.id,
          transId: receipt,
          amountKes: paidKes,
          msisdn: masked,
          payerName: request.customer.split(" ")[0]!.toUpperCase(),
          billRef: made.reference,
          paidAt,
          requestId: id,
          createdAt: minutes(paidAt, 0.05),
        });
    made.thread.push({
      body: m.payreq_paid_receipt({ amount: kes(paidKes, locale), description, receipt }, { locale }),
      at: minutes(paidAt, 0.1),
      source: "system",
      sentBy: null,
    });
  } else if (outcome.kind === "expired") {
    await db()
      .update(paymentRequests)
      .set({ status: "expired", closedAt: made.expiresAt, updatedAt: made.expiresAt })
      .where(eq(paymentRequests.id, id));
  } else if (outcome.kind === "cancelled") {
    const at = minutes(made.createdAt, outcome.afterMinutes);
    await db().update(paymentRequests).set({ status: "cancelled", closedAt: at, updatedAt: at }).where(eq(paymentRequests.id, id));
    made.thread.push({
      body: m.payreq_cancelled_told({ amount: kes(amountKes, locale), description }, { locale }),
      at: minutes(at, 0.1),
      source: "system",
      sentBy: null,
    });
  }
}

function failureText(code: number, amount: number, locale: "en" | "sw" | "fr") {
  if (code === 1) return m.payreq_failed_insufficient({ amount: kes(amount, locale) }, { locale });
  if (code === 1032) return m.payreq_failed_cancelled({}, { locale });
  if (code === 1037) return m.payreq_failed_timeout({}, { locale });
  return m.payreq_failed_wrong_pin({}, { locale });
}

/** The request's messages in the thread, as the sending engine leaves them (read), and the conversation's last message moved on. */
async function storeThread(
  place: Place,
  customer: { contactId: string; conversationId: string; phoneNumberId: string; phone: string | null },
  thread: Line[],
  index: number,
) {
  const to = customer.phone!;
  const later = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000);
  const saved = await db()
    .insert(messages)
    .values(
      thread.map((t, n) => ({
        organizationId: place.organizationId,
        contactId: customer.contactId,
        direction: "outbound" as const,
        status: "read",
        body: t.body,
        phoneNumberId: customer.phoneNumberId,
        messageType: t.buttons ? "interactive" : "text",
        payload: {
          messaging_product: "whatsapp",
          recipient_type: "individual",
          to,
          ...(t.buttons
            ? {
                type: "interactive",
                interactive: {
                  type: "button",
                  body: { text: t.body },
                  action: { buttons: t.buttons.map((b) => ({ type: "reply", reply: b })) },
                },
              }
            : { type: "text", text: { body: t.body, preview_url: false } }),
        },
        source: t.source,
        sentBy: t.sentBy,
        recipientPhone: to,
        recipientWaId: to.slice(1),
        wamid: `wamid.demo-payreq-${index}-${n}`,
        attempts: 1,
        createdAt: t.at,
        acceptedAt: t.at,
        sentAt: later(t.at, 1),
        deliveredAt: later(t.at, 3),
        readAt: later(t.at, 40),
        pricingCategory: "service",
        pricingType: "free_customer_service",
        billable: false,
      })),
    )
    .returning({ id: messages.id });
  const last = later(thread.at(-1)!.at, 1);
  const [conversation] = await db()
    .select({ lastMessageAt: conversations.lastMessageAt })
    .from(conversations)
    .where(eq(conversations.id, customer.conversationId));
  if (conversation && conversation.lastMessageAt < last)
    await db().update(conversations).set({ lastMessageAt: last }).where(eq(conversations.id, customer.conversationId));
  return saved.map((s) => s.id);
}
