import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { runBillingCycle } from "~/.server/domains/billing/cycle";
import { messagesUsedThisMonth } from "~/.server/domains/billing/month-usage";
import { deliverQueuedSms, queueInboxSms, receiveIncomingSms } from "~/.server/domains/sms";
import { SMS_PART_PRICE_CENTS } from "~/lib/sms-price";
import type { InvoiceLine } from "~/lib/invoice";
import { africastalkingForFile, connectSms, DAYTIME, incomingSms, smsTenant } from "../support/sms";

// Issue 77 (decision 150): a postpaid organisation's SMS on its monthly invoice, parts × the price of
// a part, apart from the plan's WhatsApp messages; a refused SMS is not on it.

africastalkingForFile();

describe("a postpaid organisation's SMS", () => {
  it("are one invoice line of their parts at the price of a part, the invoice's total with it", async () => {
    const t = await smsTenant("Sacco ya SMS");
    await rawQuery(
      `update organizations set created_at = '2026-09-15T08:00:00Z', plan_type = 'Growth', billing_type = 'postpaid',
       kra_pin = 'P051874263K', postal_address = 'P.O. Box 2145-20100, Nakuru' where id = $1`,
      [t.organizationId],
    );
    const token = await connectSms(t);
    await receiveIncomingSms(token, incomingSms({ from: "+254711400500", text: "Salio langu?", id: "9501" }));
    await receiveIncomingSms(token, incomingSms({ from: "+254700000403", text: "Habari", id: "9502" }));
    const [one, two] = await rawQuery<{ id: string }>(
      `select c.id from conversations c join contacts k on k.id = c.contact_id where c.organization_id = $1 order by k.phone desc`,
      [t.organizationId],
    );
    const sent = [
      await queueInboxSms(t.actor, { conversationId: one!.id, body: "Salio lako ni KES 4,500. ".repeat(8).trim() }, DAYTIME), // 2 parts
      await queueInboxSms(t.actor, { conversationId: one!.id, body: "Asante!" }, DAYTIME), // 1 part
    ];
    const refused = await queueInboxSms(t.actor, { conversationId: two!.id, body: "Habari" }, DAYTIME); // AT refuses: not invoiced
    expect(sent.map((s) => s.parts)).toEqual([2, 1]);
    for (const s of sent) expect(await deliverQueuedSms(s.messageId)).toBe("sent");
    expect(await deliverQueuedSms(refused.messageId)).toBe("failed");
    // SMS are not among the plan's WhatsApp messages.
    expect(await messagesUsedThisMonth(t.organizationId)).toBe(0);
    // Taken by AT in October (Nairobi), for the October invoice.
    await rawQuery(`update messages set accepted_at = '2026-10-15T09:00:00Z' where organization_id = $1 and channel = 'sms'`, [
      t.organizationId,
    ]);

    await runBillingCycle(new Date("2026-10-31T21:05:00Z"));
    const [invoice] = await rawQuery<{ lines: InvoiceLine[]; net_cents: string; vat_cents: string; total_cents: string }>(
      `select lines, net_cents::text, vat_cents::text, total_cents::text from invoices where organization_id = $1 and kind = 'subscription'`,
      [t.organizationId],
    );
    const sms = invoice!.lines.find((line) => line.itemCode === "JMB-SMS");
    expect(sms).toEqual({
      description: "SMS, 3 parts (2 SMS sent)",
      itemCode: "JMB-SMS",
      quantity: 3,
      unit: "SMS part",
      unitPriceCents: SMS_PART_PRICE_CENTS,
      netCents: 3 * SMS_PART_PRICE_CENTS,
      vatCents: 48,
      grossCents: 348,
    });
    expect(invoice!.lines.some((line) => line.itemCode === "JMB-MSG")).toBe(false);
    expect(Number(invoice!.net_cents)).toBe(invoice!.lines.reduce((sum, line) => sum + line.netCents, 0));
    expect(Number(invoice!.total_cents)).toBe(invoice!.lines.reduce((sum, line) => sum + line.grossCents, 0));
    expect(Number(invoice!.total_cents)).toBe(Number(invoice!.net_cents) + Number(invoice!.vat_cents));
  });
});
