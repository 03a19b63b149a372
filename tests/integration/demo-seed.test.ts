import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { DEMO_ACCOUNTS, seedDemoData } from "~/.server/demo/seed";
import { numberInIssueOrder } from "~/.server/demo/seed-billing";
import { listQuickReplies } from "~/.server/domains/inbox/quick-replies";
import { fileStorage } from "~/.server/infrastructure/storage";
import { env } from "~/.server/infrastructure/config/env";
import { stableNumericId } from "@jumbe/sandbox/meta/util";
import { DEMO_SMS_API_KEY, DEMO_SMS_USERNAME } from "@jumbe/sandbox/africastalking/demo-account";
import { smsEstimate } from "~/lib/sms-price";
import { analyticsReport } from "~/.server/domains/analytics/report";
import { parseAnalyticsFilters } from "~/lib/analytics";
import { invoiceDocument } from "~/.server/domains/billing/invoices";
import { amountDueCents, documentTitle, invoiceStatusWords, paymentMethodLabel } from "~/lib/invoice-document";

// The demo tenant's inbox (issue 16): conversations as the webhooks, the sending engine and the
// agents would have left them, so /chat shows something real on a fresh start.

async function demoOrganization() {
  const [row] = await rawQuery<{ organization_id: string }>(`select organization_id from users where email = $1`, [
    DEMO_ACCOUNTS.find((a) => a.usertype === "individual")!.email,
  ]);
  return row!.organization_id;
}

async function countsOf(organizationId: string) {
  const [row] = await rawQuery<Record<string, number>>(
    `select (select count(*)::int from conversations where organization_id = $1) as conversations,
            (select count(*)::int from messages where organization_id = $1) as messages,
            (select count(*)::int from conversation_entries where organization_id = $1) as entries,
            (select count(*)::int from media_files where organization_id = $1) as files,
            (select count(*)::int from quick_replies where organization_id = $1) as replies,
            (select count(*)::int from contacts where organization_id = $1) as contacts`,
    [organizationId],
  );
  return row!;
}

describe("the demo inbox", () => {
  it("seeds about 25 conversations on the sandbox's demo number, consistent with their messages, once", async () => {
    expect(await seedDemoData()).toBe(true);
    const organizationId = await demoOrganization();
    const before = await countsOf(organizationId);
    expect(before.conversations).toBeGreaterThanOrEqual(20);
    expect(before.replies).toBe(8);

    const demoNumber = stableNumericId(`${env().META_APP_ID}:demo-phone`);
    const rows = await rawQuery<{
      id: string;
      phone_number_id: string;
      name: string;
      phone: string;
      unread_count: number;
      unread_inbound: number;
      last_inbound_at: Date | string | null;
      max_inbound: Date | string | null;
      last_message_at: Date | string;
      max_message: Date | string;
      status: string;
      resolved_at: Date | string | null;
      assignee_org: string | null;
      assigned_to: string | null;
    }>(
      `select c.id, c.phone_number_id, k.name, k.phone, c.unread_count, c.last_inbound_at, c.last_message_at, c.status, c.resolved_at,
              c.assigned_to, u.organization_id as assignee_org,
              (select count(*)::int from messages m where m.contact_id = c.contact_id and m.phone_number_id = c.phone_number_id
                 and m.direction = 'inbound' and m.read_at is null) as unread_inbound,
              (select max(m.sent_at) from messages m where m.contact_id = c.contact_id and m.phone_number_id = c.phone_number_id
                 and m.direction = 'inbound' and m.channel = 'whatsapp') as max_inbound,
              (select max(coalesce(m.sent_at, m.created_at)) from messages m where m.contact_id = c.contact_id
                 and m.phone_number_id = c.phone_number_id) as max_message
       from conversations c join contacts k on k.id = c.contact_id left join users u on u.id = c.assigned_to
       where c.organization_id = $1`,
      [organizationId],
    );
    const time = (value: Date | string | null) => (value === null ? null : new Date(value).getTime());
    for (const row of rows) {
      expect(row.phone_number_id, row.name).toBe(demoNumber);
      expect(row.phone, row.name).toMatch(/^\+2547\d{8}$/);
      expect(row.unread_count, `${row.name}: unread`).toBe(row.unread_inbound);
      expect(time(row.last_inbound_at), `${row.name}: last inbound`).toBe(time(row.max_inbound));
      expect(time(row.last_message_at), `${row.name}: last message`).toBe(time(row.max_message));
      expect(row.status === "resolved", `${row.name}: resolved_at`).toBe(row.resolved_at !== null);
      if (row.status === "resolved") expect(row.unread_count, `${row.name}: resolved with unread`).toBe(0);
      if (row.assigned_to) expect(row.assignee_org, `${row.name}: assignee`).toBe(organizationId);
    }
    const names = rows.map((r) => r.name);
    for (const name of ["Wanjiku Kamau", "Otieno Ochieng", "Achieng Atieno", "Mwangi Njoroge", "Fatuma Hassan", "Kiprop Cheruiyot"])
      expect(names).toContain(name);
    const now = Date.now();
    const open = rows.filter((r) => now - time(r.last_inbound_at)! < 24 * 3600_000);
    expect(open.length, "windows open").toBeGreaterThanOrEqual(8);
    expect(rows.length - open.length, "windows closed").toBeGreaterThanOrEqual(5);
    expect(rows.filter((r) => r.status === "resolved").length).toBeGreaterThanOrEqual(3);
    expect(rows.filter((r) => r.assigned_to).length).toBeGreaterThanOrEqual(8);
    expect(rows.filter((r) => r.unread_count > 0).length).toBeGreaterThanOrEqual(4);

    // A second start seeds nothing.
    expect(await seedDemoData()).toBe(false);
    expect(await countsOf(organizationId)).toEqual(before);
  });

  it("holds every kind of message in and out, as Meta and the sending engine shape them", async () => {
    await seedDemoData();
    const organizationId = await demoOrganization();
    const inbound = await rawQuery<{ message_type: string; wamid: string; status: string; payload: Record<string, unknown>; body: string }>(
      `select m.message_type, m.wamid, m.status, m.payload, m.body from messages m
       join conversations c on c.contact_id = m.contact_id and c.phone_number_id = m.phone_number_id
       where m.organization_id = $1 and m.direction = 'inbound' and m.channel = 'whatsapp'`,
      [organizationId],
    );
    expect(new Set(inbound.map((m) => m.message_type))).toEqual(
      new Set(["text", "image", "audio", "document", "location", "contacts", "interactive", "reaction"]),
    );
    for (const m of inbound) {
      expect(m.wamid).toMatch(/^wamid\.DEMO/);
      expect(m.status).toBe("received");
      expect(m.payload.id).toBe(m.wamid);
      expect(m.payload.type).toBe(m.message_type);
      expect(m.payload.timestamp).toMatch(/^\d+$/);
    }
    expect((inbound.find((m) => m.message_type === "audio")!.payload.audio as { voice: boolean }).voice).toBe(true);
    expect(inbound.find((m) => m.message_type === "location")!.body).toBe("Sarit Centre, Karuna Close, Westlands, Nairobi");
    expect(
      inbound.some((m) => /[Nn]iaje|boss|mathe/.test(m.body)),
      "Sheng",
    ).toBe(true);

    // Replies in context and reactions name messages of the same tenant by their wamid.
    const wamids = new Set(
      (
        await rawQuery<{ wamid: string }>(`select wamid from messages where organization_id = $1 and wamid is not null`, [organizationId])
      ).map((r) => r.wamid),
    );
    const quoted = inbound.filter((m) => m.payload.context).map((m) => (m.payload.context as { id: string }).id);
    expect(quoted.length).toBeGreaterThanOrEqual(3);
    for (const id of quoted) expect(wamids.has(id)).toBe(true);
    for (const m of inbound.filter((m) => m.message_type === "reaction"))
      expect(wamids.has((m.payload.reaction as { message_id: string }).message_id)).toBe(true);

    const outbound = await rawQuery<{
      status: string;
      source: string;
      sent_by: string | null;
      error_code: number | null;
      error_title: string | null;
      template_id: string | null;
      payload: Record<string, unknown> | null;
      campaign_id: string | null;
    }>(
      `select m.status, m.source, m.sent_by, m.error_code, m.error_title, m.template_id, m.payload, m.campaign_id from messages m
       join conversations c on c.contact_id = m.contact_id and c.phone_number_id = m.phone_number_id
       where m.organization_id = $1 and m.direction = 'outbound' and m.channel = 'whatsapp'`,
      [organizationId],
    );
    const agents = outbound.filter((m) => m.source === "inbox");
    expect(new Set(agents.map((m) => m.status))).toEqual(new Set(["sent", "delivered", "read", "failed"]));
    expect(agents.every((m) => m.sent_by)).toBe(true);
    expect(agents.filter((m) => m.status === "failed")).toMatchObject([{ error_code: 131047, error_title: "Re-engagement message" }]);
    const template = outbound.find((m) => m.source === "campaign")!;
    expect(template.template_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(template.campaign_id).not.toBeNull();
    expect((template.payload!.template as { name: string; components: unknown[] }).name).toBe("loan_repayment_reminder");
    expect((template.payload!.template as { components: unknown[] }).components).toHaveLength(3);

    const entries = await rawQuery<{ kind: string }>(`select distinct kind from conversation_entries where organization_id = $1`, [
      organizationId,
    ]);
    expect(new Set(entries.map((e) => e.kind))).toEqual(new Set(["note", "assigned", "unassigned", "resolved", "reopened"]));

    expect((await listQuickReplies(organizationId)).map((r) => r.shortcut)).toEqual([
      "delivery",
      "escalate",
      "habari",
      "hours",
      "location",
      "mpesa",
      "refund",
      "thanks",
    ]);
  });

  it("stores the customers' files as a download would have: real bytes in storage, linked from their messages", async () => {
    await seedDemoData();
    const organizationId = await demoOrganization();
    const files = await rawQuery<{
      message_type: string;
      mime_type: string;
      size: number;
      sha256: string;
      storage_key: string;
      payload_sha: string;
    }>(
      `select m.message_type, f.mime_type, f.size, f.sha256, f.storage_key, m.payload -> m.message_type ->> 'sha256' as payload_sha
       from messages m join media_files f on f.id = m.media_file_id
       where m.organization_id = $1 and f.organization_id = $1 and f.direction = 'inbound' order by m.message_type`,
      [organizationId],
    );
    expect(files.map((f) => [f.message_type, f.mime_type])).toEqual([
      ["audio", "audio/ogg"],
      ["document", "application/pdf"],
      ["image", "image/png"],
    ]);
    const magic: Record<string, string> = { "audio/ogg": "OggS", "application/pdf": "%PDF", "image/png": "\x89PNG" };
    for (const file of files) {
      const chunks: Buffer[] = [];
      for await (const chunk of await fileStorage().read(file.storage_key)) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      expect(bytes.length).toBe(file.size);
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(file.sha256);
      expect(Buffer.from(file.payload_sha, "base64").toString("hex")).toBe(file.sha256);
      expect(bytes.subarray(0, 4).toString("latin1")).toBe(magic[file.mime_type]);
    }
  });
});

describe("the demo billing", () => {
  it("has an SMS connection and SMS as the SMS domain leaves them: priced per part, charged once, reported, a reply in the same conversation", async () => {
    await seedDemoData();
    const organizationId = await demoOrganization();
    const [connection] = await rawQuery<{ username: string; api_key_sealed: string; status: string }>(
      `select username, api_key_sealed, status from sms_connections where organization_id = $1`,
      [organizationId],
    );
    expect(connection).toMatchObject({ username: DEMO_SMS_USERNAME, status: "working" });
    expect(connection!.api_key_sealed).not.toContain(DEMO_SMS_API_KEY);
    const sms = await rawQuery<{
      id: string;
      direction: string;
      status: string;
      body: string;
      contact_id: string;
      phone_number_id: string;
      price_cents: number | null;
      charge_state: string | null;
      parts: number;
      sms_price: number;
      report_status: string | null;
    }>(
      `select m.id, m.direction, m.status, m.body, m.contact_id, m.phone_number_id, m.price_cents, m.charge_state,
              s.parts, s.price_cents as sms_price, s.report_status
       from messages m join sms_messages s on s.message_id = m.id
       where m.organization_id = $1 and m.channel = 'sms' order by m.created_at`,
      [organizationId],
    );
    const outbound = sms.filter((row) => row.direction === "outbound");
    expect(outbound.map((row) => [row.status, row.report_status])).toEqual([
      ["delivered", "Success"],
      ["failed", "Failed"],
      ["sent", "Buffered"],
    ]);
    for (const row of outbound) {
      const estimate = smsEstimate(row.body);
      expect([row.parts, row.sms_price, row.price_cents, row.charge_state]).toEqual([
        estimate.parts,
        estimate.priceCents,
        estimate.priceCents,
        "charged",
      ]);
    }
    expect(outbound.some((row) => row.parts > 1)).toBe(true);
    const [reply] = sms.filter((row) => row.direction === "inbound");
    expect(reply).toMatchObject({ status: "received", contact_id: outbound[0]!.contact_id, phone_number_id: outbound[0]!.phone_number_id });
  });

  it("is what the billing domain left: the wallet equals its ledger, invoice numbers have no gaps, usage equals the charged messages", async () => {
    await seedDemoData();
    const organizationId = await demoOrganization();
    const [org] = await rawQuery<{ plan_type: string; billing_type: string; message_limit: number }>(
      `select plan_type, billing_type, message_limit from organizations where id = $1`,
      [organizationId],
    );
    expect(org).toEqual({ plan_type: "Growth", billing_type: "prepaid", message_limit: 10000 });

    // The wallet is the sum of its ledger, and each ledger row's running totals follow from the ones before.
    const [wallet] = await rawQuery<{ balance: string; held: string; ledger_balance: string; ledger_held: string; low: string }>(
      `select w.balance_cents::text as balance, w.held_cents::text as held, w.low_balance_threshold_cents::text as low,
              (select coalesce(sum(amount_cents), 0)::text from wallet_entries e where e.organization_id = w.organization_id) as ledger_balance,
              (select coalesce(sum(held_cents), 0)::text from wallet_entries e where e.organization_id = w.organization_id) as ledger_held
       from wallets w where w.organization_id = $1`,
      [organizationId],
    );
    expect(wallet!.balance).toBe(wallet!.ledger_balance);
    expect(wallet!.held).toBe(wallet!.ledger_held);
    expect(wallet!.held).toBe("0");
    expect(wallet!.low).toBe("50000");
    const entries = await rawQuery<{
      kind: string;
      amount_cents: string;
      held_cents: string;
      balance_after_cents: string;
      created_at: Date | string;
    }>(
      `select kind, amount_cents, held_cents, balance_after_cents, created_at from wallet_entries where organization_id = $1 order by id`,
      [organizationId],
    );
    let running = 0;
    let previous = 0;
    for (const entry of entries) {
      running += Number(entry.amount_cents);
      expect(Number(entry.balance_after_cents)).toBe(running);
      const at = new Date(entry.created_at).getTime();
      expect(at, "ledger rows in time order").toBeGreaterThanOrEqual(previous);
      expect(at).toBeLessThan(Date.now());
      previous = at;
    }
    expect(new Set(entries.map((e) => e.kind))).toEqual(new Set(["topup", "invoice_payment", "hold", "charge", "refund"]));
    expect(entries.length).toBeLessThan(60);

    // Usage is the charged messages (prepaid) and the counted ones (postpaid, before the move), by day;
    // every accepted template message was charged or counted, or refunded when Meta failed it afterwards.
    const [usage] = await rawQuery<{
      used: number;
      spent: string;
      charged: number;
      charged_cents: string;
      counted: number;
      refunded: number;
      failed_after_accepting: number;
      unsettled: number;
      last_counted: Date | string | null;
      first_charged: Date | string;
    }>(
      `select (select coalesce(sum(messages), 0)::int from billing_usage_daily where organization_id = $1) as used,
              (select coalesce(sum(amount_cents), 0)::text from billing_usage_daily where organization_id = $1) as spent,
              (select count(*)::int from messages where organization_id = $1 and charge_state = 'charged') as charged,
              (select coalesce(sum(price_cents), 0)::text from messages where organization_id = $1 and charge_state = 'charged') as charged_cents,
              (select count(*)::int from messages where organization_id = $1 and charge_state = 'counted') as counted,
              (select count(*)::int from messages where organization_id = $1 and charge_state = 'refunded') as refunded,
              (select count(*)::int from messages where organization_id = $1 and direction = 'outbound' and message_type = 'template'
                 and accepted_at is not null and status = 'failed') as failed_after_accepting,
              (select count(*)::int from messages where organization_id = $1 and direction = 'outbound' and message_type = 'template'
                 and accepted_at is not null and charge_state is distinct from 'charged' and charge_state is distinct from 'counted'
                 and charge_state is distinct from 'refunded') as unsettled,
              (select max(accepted_at) from messages where organization_id = $1 and charge_state = 'counted') as last_counted,
              (select min(accepted_at) from messages where organization_id = $1 and charge_state = 'charged') as first_charged`,
      [organizationId],
    );
    expect(usage!.charged).toBeGreaterThan(300);
    expect(usage!.counted, "the postpaid months' template messages").toBeGreaterThan(0);
    expect(new Date(usage!.last_counted!).getTime(), "postpaid before prepaid").toBeLessThan(new Date(usage!.first_charged).getTime());
    expect(usage!.used).toBe(usage!.charged + usage!.counted);
    expect(usage!.spent).toBe(usage!.charged_cents);
    expect(usage!.refunded).toBeGreaterThanOrEqual(8);
    expect(usage!.refunded).toBe(usage!.failed_after_accepting);
    expect(usage!.unsettled).toBe(0);
    const [spend] = await rawQuery<{ charges: string }>(
      `select (-coalesce(sum(amount_cents), 0))::text as charges from wallet_entries where organization_id = $1 and kind in ('charge', 'refund')`,
      [organizationId],
    );
    expect(spend!.charges).toBe(usage!.charged_cents);
    const byDay = await rawQuery<{ day: string; category: string; usage: number; messages: number }>(
      `select u.day::text as day, u.category, u.messages as usage,
              (select count(*)::int from messages m where m.organization_id = u.organization_id and m.charge_state in ('charged', 'counted')
                 and m.phone_number_id = u.phone_number_id and coalesce(lower(m.pricing_category), 'marketing') = u.category
                 and ((m.accepted_at + interval '3 hours') at time zone 'UTC')::date = u.day) as messages
       from billing_usage_daily u where u.organization_id = $1`,
      [organizationId],
    );
    expect(new Set(byDay.map((row) => row.category))).toEqual(new Set(["utility", "authentication", "marketing", "sms"]));
    for (const row of byDay) expect(row.usage, `${row.day} ${row.category}`).toBe(row.messages);

    // Invoices: numbered without gaps per series and year, in issue order, across the platform (the
    // admin console's seed adds other tenants' documents to the same series).
    const platform = await rawQuery<{ number: string }>(`select number from invoices order by issued_at, number`);
    const seen = new Map<string, number>();
    for (const invoice of platform) {
      const [series, year, sequence] = invoice.number.split("-");
      const key = `${series}-${year}`;
      expect(Number(sequence), invoice.number).toBe((seen.get(key) ?? 0) + 1);
      seen.set(key, Number(sequence));
    }
    const invoices = await rawQuery<{
      number: string;
      series: string;
      kind: string;
      status: string;
      issued_at: Date | string;
      total_cents: string;
    }>(`select number, series, kind, status, issued_at, total_cents from invoices where organization_id = $1 order by issued_at, number`, [
      organizationId,
    ]);
    const counters = await rawQuery<{ series: string; year: number; last: number }>(`select series, year, last from invoice_counters`);
    expect(new Map(counters.map((c) => [`${c.series}-${c.year}`, c.last]))).toEqual(seen);
    const subscriptions = invoices.filter((i) => i.kind === "subscription");
    expect(subscriptions.map((i) => i.status)).toEqual(["paid", "disputed"]);
    expect(subscriptions.map((i) => Number(i.total_cents))).toEqual([232_000, 232_000]);
    expect(invoices.filter((i) => i.kind === "topup").every((i) => i.status === "paid" && i.series === "INV")).toBe(true);
    expect(invoices.filter((i) => i.kind === "bank_transfer").map((i) => i.status)).toEqual(["pending"]);
    const [dispute] = await rawQuery<{ status: string; reason: string }>(
      `select status, reason from invoice_disputes where organization_id = $1`,
      [organizationId],
    );
    expect(dispute).toMatchObject({ status: "open", reason: expect.stringMatching(/prepaid Growth/) });

    // Payments: M-Pesa prompts with Safaricom-like receipts, one paybill, one card, one bank transfer still pending.
    const payments = await rawQuery<{ method: string; status: string; receipt: string | null; reference: string | null }>(
      `select method, status, receipt, reference from payments where organization_id = $1 order by created_at`,
      [organizationId],
    );
    expect(payments.map((p) => `${p.method}:${p.status}`)).toEqual([
      "mpesa:completed",
      "mpesa:completed",
      "c2b:completed",
      "card:completed",
      "mpesa:completed",
      "bank:pending",
    ]);
    for (const p of payments.filter((p) => p.method === "mpesa" || p.method === "c2b"))
      expect(p.receipt).toMatch(/^[A-Z][A-L][0-9A-W][0-9A-Z]{7}$/);
    const topups = entries.filter((e) => e.kind === "topup").reduce((sum, e) => sum + Number(e.amount_cents), 0);
    expect(topups).toBe(232_000 + 300_000 + 150_000 + 500_000 + 200_000);

    // History e-mails nobody, and nothing waits on the queue for it.
    const [jobs] = await rawQuery<{ n: number }>(
      `select count(*)::int as n from jobs where queue like 'notifications.mail' or queue like 'billing.%'`,
    );
    expect(jobs!.n).toBe(0);

    // Issue 40: the console's tenants show the corrected figures. An overdue invoice credited in part is
    // "Partly credited" with less due; monthly invoices paid from money on account say "Wallet"; that
    // money's documents are receipts, not tax invoices.
    const [eldoret] = await rawQuery<{ id: string; organization_id: string }>(
      `select i.id, i.organization_id from invoices i join organizations o on o.id = i.organization_id
       where o.name = 'Eldoret Agrovet Supplies' and i.status = 'overdue'`,
    );
    const credited = (await invoiceDocument(eldoret!.organization_id, eldoret!.id))!;
    expect(invoiceStatusWords(credited)).toBe("Partly credited");
    expect(amountDueCents(credited)).toBe(credited.totalCents - 50_000);
    const [walletPaid] = await rawQuery<{ id: string; organization_id: string }>(
      `select i.id, i.organization_id from invoices i join organizations o on o.id = i.organization_id
       where o.name = 'Mwangaza Microfinance Bank' and i.kind = 'subscription' and i.status = 'paid' limit 1`,
    );
    const walletDoc = (await invoiceDocument(walletPaid!.organization_id, walletPaid!.id))!;
    expect(paymentMethodLabel(walletDoc)).toBe("Wallet");
    const [receipt] = await rawQuery<{ id: string }>(`select id from invoices where organization_id = $1 and series = 'RCT' limit 1`, [
      walletPaid!.organization_id,
    ]);
    expect(documentTitle((await invoiceDocument(walletPaid!.organization_id, receipt!.id))!)).toBe("RECEIPT");
  });
});

describe("the demo billing started in January", () => {
  it("numbers documents dated into the year before in that year, still without gaps", async () => {
    await seedDemoData();
    const organizationId = await demoOrganization();
    const topups = await rawQuery<{ id: string; issued_at: Date | string }>(
      `select id, issued_at from invoices where organization_id = $1 and kind = 'topup' order by issued_at limit 2`,
      [organizationId],
    );
    const year = new Date(topups[0]!.issued_at).getUTCFullYear() - 1;
    // As if the seed had run early in January: its first two top-ups fall in December.
    await rawQuery(`update invoices set issued_at = $2 where id = $1`, [topups[0]!.id, `${year}-12-03T07:14:00Z`]);
    await rawQuery(`update invoices set issued_at = $2 where id = $1`, [topups[1]!.id, `${year}-12-17T13:03:00Z`]);
    await numberInIssueOrder();
    // Every tax invoice on the platform, in issue order: that year's from 1 (the demo's two top-ups
    // among them, first), this year's from 1 again, each without gaps; the counters say where each ended.
    const numbers = await rawQuery<{ id: string; number: string }>(
      `select id, number from invoices where series = 'INV' order by issued_at, number`,
    );
    const before = numbers.filter((n) => n.number.startsWith(`INV-${year}-`));
    expect(before.filter((n) => topups.some((t) => t.id === n.id)).map((n) => n.id)).toEqual(topups.map((t) => t.id));
    expect(before.map((n) => Number(n.number.slice(-6)))).toEqual(before.map((_, i) => i + 1));
    const later = numbers.filter((n) => !n.number.startsWith(`INV-${year}-`)).map((n) => Number(n.number.slice(-6)));
    expect(later).toEqual(later.map((_, i) => i + 1));
    const [counter] = await rawQuery<{ last: number }>(`select last from invoice_counters where series = 'INV' and year = $1`, [year]);
    expect(counter!.last).toBe(before.length);
  });
});

describe("the demo analytics", () => {
  it("fills every part of Advanced Analytics: 90 days of sends, statuses, replies, answers and spend, and the last 24 hours", async () => {
    await seedDemoData();
    const organizationId = await demoOrganization();
    const filtersOf = (query: string) => {
      const parsed = parseAnalyticsFilters(new URLSearchParams(query));
      expect(parsed.ok).toBe(true);
      return parsed.filters;
    };
    // The seed folds its history before it returns: the report reads the rollups only.
    const report = await analyticsReport(organizationId, filtersOf("period=90d"));
    const { cards } = report;
    for (const card of ["sent", "delivered", "read", "replied", "failed", "received", "uniqueContacts", "spendCents"] as const)
      expect(cards[card].value, card).toBeGreaterThan(0);
    expect(cards.avgResponseMinutes.value).toBeGreaterThan(0);
    expect(cards.deliveryRate.value).toBeGreaterThan(80);
    expect(cards.readRate.value).toBeGreaterThan(50);
    expect(report.billingType).toBe("prepaid");
    expect(report.funnel.replied).toBeGreaterThan(0);
    expect(report.funnel.replied).toBeLessThan(report.funnel.read);
    expect(report.templates.map((t) => t.name).sort()).toEqual(["dividend_announcement_sw", "loan_repayment_reminder", "otp_verification"]);
    for (const category of report.categories) expect(category.messages, category.category).toBeGreaterThan(0);
    // Prepaid template messages cost KES 2.00 each; replies inside the window are free.
    expect(report.categories.find((c) => c.category === "service")!.spendCents).toBe(0);
    expect(report.categories.find((c) => c.category === "utility")!.spendCents).toBeGreaterThan(0);
    expect(report.volume.points.filter((p) => p.sent > 0).length).toBeGreaterThan(8);
    expect(report.daily).toHaveLength(90);
    expect(report.daily.filter((d) => d.messagesSent > 0).length).toBeGreaterThan(60);
    expect(report.daily.filter((d) => d.messagesReplied > 0).length).toBeGreaterThan(10);

    const day = await analyticsReport(organizationId, filtersOf("period=24h"));
    expect(day.cards.sent.value).toBeGreaterThan(0);
    expect(day.cards.received.value).toBeGreaterThan(0);
    expect(day.daily).toHaveLength(24);

    // The fold credited the members' replies by its rule: each within 24 hours of what it answered.
    const [replies] = await rawQuery<{ credited: number; late: number }>(
      `select count(*)::int as credited,
              count(*) filter (where replied_at < accepted_at or replied_at > accepted_at + interval '24 hours')::int as late
       from messages where organization_id = $1 and direction = 'outbound' and replied_at is not null`,
      [organizationId],
    );
    expect(replies!.credited).toBe(report.cards.replied.value);
    expect(replies!.late).toBe(0);
  });
});
