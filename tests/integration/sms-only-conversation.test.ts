import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { receiveIncomingSms } from "~/.server/domains/sms";
import { queueMessage } from "~/.server/domains/messaging";
import * as conversationPage from "~/routes/app/chat/conversation";
import { signedInCookie } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";
import { connectedNumber } from "../support/whatsapp";
import { africastalkingForFile, connectSms, incomingSms, smsTenant, type SmsTenant } from "../support/sms";

// Issue 77 (decision 150): a customer who only ever wrote by SMS. Nothing goes on WhatsApp from a
// conversation on the pseudo-number `sms`; on a WhatsApp number, only a template may (Meta's rule),
// and the words point to "Send as SMS". The send path refuses, not only the composer.

africastalkingForFile();

async function smsCustomer(t: SmsTenant, phone: string, id: string) {
  const token = await connectSms(t);
  await receiveIncomingSms(token, incomingSms({ from: phone, text: "Bei ya unga?", id }));
  const [conversation] = await rawQuery<{ id: string; phone_number_id: string }>(
    `select c.id, c.phone_number_id from conversations c join contacts k on k.id = c.contact_id
     where c.organization_id = $1 and k.phone = $2`,
    [t.organizationId, phone],
  );
  return conversation!;
}

const outbound = async (t: SmsTenant) => {
  const [row] = await rawQuery<{ n: string }>(`select count(*) as n from messages where organization_id = $1 and direction = 'outbound'`, [
    t.organizationId,
  ]);
  return Number(row!.n);
};

describe("an SMS-only conversation", () => {
  it("on the pseudo-number: the composer says SMS only, and every WhatsApp send is refused with words", async () => {
    const t = await smsTenant("Duka SMS Pekee");
    const conversation = await smsCustomer(t, "+254711200300", "7701");
    expect(conversation.phone_number_id).toBe("sms");
    const cookie = await signedInCookie(t.email, t.password);

    const page = await run(conversationPage.loader, getRequest(`/chat/${conversation.id}`, { cookie }), {
      params: { id: conversation.id },
    });
    expect(page.data).toMatchObject({ smsOnly: "conversation", smsReady: true });

    const reply = await run(
      conversationPage.action,
      formRequest(`/chat/${conversation.id}`, { intent: "send", body: "Habari" }, { cookie }),
      { params: { id: conversation.id } },
    );
    expect(reply.status).toBe(409);
    expect(JSON.stringify(reply.data)).toContain("Send as SMS");

    // Where the WhatsApp send is written: a text and a template alike.
    for (const content of [
      { kind: "text" as const, text: "Habari" },
      { kind: "template" as const, template: { name: "hello_world", language: "en", parameters: [] } },
    ])
      await expect(queueMessage(t.organizationId, { to: "+254711200300", from: "sms", content, source: "inbox" })).rejects.toMatchObject({
        status: 409,
        code: "no_whatsapp_number",
        message: expect.stringContaining("SMS only"),
      });
    expect(await outbound(t)).toBe(0);
  });

  it("on a WhatsApp number the customer never wrote to: no free-form message, the words say SMS or a template", async () => {
    const t = await smsTenant("Duka Namba Moja");
    const { phone } = await connectedNumber(t.organizationId, { wabaId: "7707001", phoneNumberId: "8807001", display: "+254 700 770 100" });
    await rawQuery(`update whatsapp_phone_numbers set registered_at = now() where id = $1`, [phone.id]);
    const conversation = await smsCustomer(t, "+254711200400", "7702");
    expect(conversation.phone_number_id).toBe("8807001");
    const cookie = await signedInCookie(t.email, t.password);

    const page = await run(conversationPage.loader, getRequest(`/chat/${conversation.id}`, { cookie }), {
      params: { id: conversation.id },
    });
    expect(page.data.smsOnly).toBe("contact");

    await expect(
      queueMessage(t.organizationId, { to: "+254711200400", from: "8807001", content: { kind: "text", text: "Habari" }, source: "api" }),
    ).rejects.toMatchObject({ status: 422, code: "outside_service_window", message: expect.stringContaining("only written by SMS") });
    expect(await outbound(t)).toBe(0);

    // Once they write on WhatsApp, the conversation is an ordinary one.
    await rawQuery(`update conversations set last_inbound_at = now() where id = $1`, [conversation.id]);
    const after = await run(conversationPage.loader, getRequest(`/chat/${conversation.id}`, { cookie }), {
      params: { id: conversation.id },
    });
    expect(after.data.smsOnly).toBeNull();
  });
});
