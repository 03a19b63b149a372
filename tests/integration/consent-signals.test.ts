import { describe, expect, it, vi } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { messageTemplates } from "~/.server/infrastructure/db/schema";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { queueMessage, type SendRequest } from "~/.server/domains/messaging/queue";
import { saveContact, setConsent } from "~/.server/domains/contacts/manage";
import { createVerifiedUser } from "../support/accounts";
import { metaSandboxForFile } from "../support/meta-harness";
import { isRefusal } from "~/.server/infrastructure/refusal";

// Consent arriving from WhatsApp (issue 13): keywords in English and Swahili, answered in the
// person's language; Meta's "Stop promotions" button, its 131050 failure and its user_preferences
// webhook; and the sending engine refusing marketing to anyone not opted in.

const meta = metaSandboxForFile();

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  return { organizationId: user.organization.id, userId: user.user.id, ...(await meta.graph.connect(user.organization.id, name)) };
}

/** Waits until the condition holds, running the job queue meanwhile. */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean) {
  return vi.waitFor(
    async () => {
      await drainJobs();
      const value = await read();
      if (!check(value)) throw new Error(`not yet: ${JSON.stringify(value)}`);
      return value;
    },
    { timeout: 30_000, interval: 25 },
  );
}

const ledger = (phone: string) =>
  rawQuery<{ status: string; source: string; evidence: string }>(
    `select e.status, e.source, e.evidence from consent_events e join contacts c on c.id = e.contact_id where c.phone = $1 order by e.id`,
    [phone],
  );
const optIn = async (phone: string) =>
  (await rawQuery<{ opt_in: string }>(`select opt_in from contacts where phone = $1`, [phone]))[0]?.opt_in;

async function marketingTemplate(t: Awaited<ReturnType<typeof tenant>>) {
  const components = [
    { type: "BODY", text: "Habari {{1}}! Dividend of {{2}}% announced.", example: { body_text: [["Brian", "12"]] } },
    { type: "BUTTONS", buttons: [{ type: "QUICK_REPLY", text: "Stop promotions" }] },
  ];
  meta.sandbox.createTemplateAtMeta(t.wabaId, {
    name: "dividend_news",
    language: "en",
    category: "MARKETING",
    components: components as never,
  });
  await db().insert(messageTemplates).values({
    organizationId: t.organizationId,
    wabaId: t.wabaId,
    name: "dividend_news",
    language: "en",
    category: "MARKETING",
    status: "approved",
    components,
  });
}

const dividend = (to: string): SendRequest => ({
  to,
  content: { kind: "template", template: { name: "dividend_news", parameters: ["Brian", "12"] } },
  source: "api",
});

async function refusalCode(organizationId: string, request: SendRequest) {
  try {
    await queueMessage(organizationId, request);
  } catch (error) {
    if (isRefusal(error, "send")) return error.code;
    throw error;
  }
  return "queued";
}

describe("consent from WhatsApp", () => {
  it("opts out on ACHA and back in on START, answering each in the person's language", async () => {
    const t = await tenant("Nyota Savings Sacco");
    const phone = "+254712000111";
    await meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, from: phone.slice(1), name: "Brian Mwangi", text: "Habari" });
    await until(
      () => optIn(phone),
      (v) => v === "unknown",
    );

    const { wamid: stop } = await meta.sandbox.sendInbound({
      phoneNumberId: t.phoneNumberId,
      from: phone.slice(1),
      name: "Brian Mwangi",
      text: "Acha!",
    });
    await until(
      () => optIn(phone),
      (v) => v === "opted_out",
    );
    expect(await ledger(phone)).toEqual([{ status: "opted_out", source: "keyword", evidence: `"Acha!" on WhatsApp (${stop})` }]);
    // The answer is queued by a job, in Swahili, quoting the keyword, and goes within the open window.
    const replies = await until(
      () =>
        rawQuery<{ body: string; source: string; context_wamid: string }>(
          `select body, source, context_wamid from messages where direction = 'outbound'`,
        ),
      (r) => r.length === 1,
    );
    expect(replies[0]).toMatchObject({ source: "system", context_wamid: stop });
    expect(replies[0]!.body).toContain("Jibu ANZA");
    await drainDispatcher();
    expect(meta.sandbox.messages({ phoneNumberId: t.phoneNumberId }).map((m) => (m.body.text as { body: string }).body)).toEqual([
      replies[0]!.body,
    ]);
    expect((await rawQuery<{ language: string }>(`select language from contacts where phone = $1`, [phone]))[0]!.language).toBe("sw");

    await meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, from: phone.slice(1), name: "Brian Mwangi", text: "START" });
    await until(
      () => optIn(phone),
      (v) => v === "opted_in",
    );
    const both = await until(
      () => rawQuery<{ body: string }>(`select body from messages where direction = 'outbound' order by seq`),
      (r) => r.length === 2,
    );
    expect(both[1]!.body).toContain("Reply STOP");
    // A sentence that merely holds the word is a message, not a keyword.
    await meta.sandbox.sendInbound({
      phoneNumberId: t.phoneNumberId,
      from: phone.slice(1),
      name: "Brian Mwangi",
      text: "Sitaki kuacha akiba yangu",
    });
    await until(
      () => rawQuery(`select 1 from messages where body = 'Sitaki kuacha akiba yangu'`),
      (r) => r.length === 1,
    );
    expect((await ledger(phone)).map((e) => e.status)).toEqual(["opted_out", "opted_in"]);
  });

  it("refuses marketing to anyone not opted in, and sends it once they are", async () => {
    const t = await tenant("Mavuno Sacco");
    await marketingTemplate(t);
    const unknown = "+254723000222";
    expect(await refusalCode(t.organizationId, dividend(unknown))).toBe("not_opted_in");
    const { contact } = await saveContact(t, { name: "Chebet", phone: unknown });
    expect(await refusalCode(t.organizationId, dividend(unknown))).toBe("not_opted_in");
    await setConsent(t, contact.id, { status: "opted_in", source: "form", evidence: "Member form" });
    expect(await refusalCode(t.organizationId, dividend(unknown))).toBe("queued");
    await setConsent(t, contact.id, { status: "opted_out", source: "manual", evidence: "Called" });
    expect(await refusalCode(t.organizationId, dividend(unknown))).toBe("not_opted_in");
    expect(await rawQuery(`select count(*)::int as n from messages where organization_id = $1`, [t.organizationId])).toEqual([{ n: 1 }]);
  });

  it("takes Meta's signals: the Stop promotions button, a 131050 failure and the user_preferences webhook", async () => {
    const t = await tenant("Baraka Traders");
    await marketingTemplate(t);
    const [a, b, c] = ["+254734000301", "+254734000302", "+254734000303"];
    for (const phone of [a, b]) {
      const { contact } = await saveContact(t, { name: `Mteja ${phone.slice(-1)}`, phone });
      await setConsent(t, contact.id, { status: "opted_in", source: "form", evidence: "Form" });
      await queueMessage(t.organizationId, dividend(phone));
    }
    await drainDispatcher();
    const sent = await rawQuery<{ recipient_phone: string; wamid: string }>(
      `select recipient_phone, wamid from messages where wamid is not null`,
    );
    const wamidOf = (phone: string) => sent.find((s) => s.recipient_phone === phone)!.wamid;

    // a presses the template's Stop promotions button.
    await meta.sandbox.sendInbound({
      phoneNumberId: t.phoneNumberId,
      from: a.slice(1),
      type: "button",
      payload: "Stop promotions",
      text: "Stop promotions",
      contextId: wamidOf(a),
    });
    await until(
      () => optIn(a),
      (v) => v === "opted_out",
    );
    expect((await ledger(a)).at(-1)).toMatchObject({ status: "opted_out", source: "meta" });

    // Meta fails b's next marketing message with 131050.
    await meta.sandbox.sendStatus({
      phoneNumberId: t.phoneNumberId,
      wamid: wamidOf(b),
      status: "failed",
      recipientId: b.slice(1),
      errorCode: 131050,
    });
    await until(
      () => optIn(b),
      (v) => v === "opted_out",
    );
    expect((await ledger(b)).at(-1)!.evidence).toContain("131050");

    // c, whom Jumbe has never met, stops marketing in WhatsApp's settings: remembered all the same.
    await meta.sandbox.sendRaw({
      object: "whatsapp_business_account",
      entry: [
        {
          id: t.wabaId,
          changes: [
            {
              field: "user_preferences",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: t.phone.phoneDigits, phone_number_id: t.phoneNumberId },
                contacts: [{ wa_id: c.slice(1), profile: { name: "Njeri" } }],
                user_preferences: [
                  {
                    wa_id: c.slice(1),
                    detail: "User requested to stop marketing messages",
                    category: "marketing_messages",
                    value: "stop",
                    timestamp: Math.floor(Date.now() / 1000),
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    await until(
      () => optIn(c),
      (v) => v === "opted_out",
    );
    expect(await refusalCode(t.organizationId, dividend(c))).toBe("not_opted_in");
  });
});
