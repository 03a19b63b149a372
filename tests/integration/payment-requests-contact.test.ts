import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { action as contactAction, loader as contactLoader } from "~/routes/app/messaging/contact";
import { signedInCookie } from "../support/accounts";
import { callRoute, formRequest, getRequest } from "../support/http";
import { paymentRequestsHarnessForFile } from "../support/payment-requests-harness";

// Issue 76: "Request payment" on a contact's page, in the contact's latest conversation (source `contact`),
// with the composer's fields and refusals; another tenant's contact is not found.
const h = paymentRequestsHarnessForFile();

const contactOf = async (conversationId: string) =>
  (await rawQuery<{ contact_id: string }>(`select contact_id from conversations where id = $1`, [conversationId]))[0]!.contact_id;

describe("a contact page's payment request", () => {
  it("asks in the contact's conversation, refuses bad fields at the field, and answers 404 for another tenant's contact", async () => {
    const t = await h.tenant("Duka la Mteja");
    const other = await h.tenant("Duka la Jirani Mteja");
    const conversationId = await h.customerWrites(t, "254722800001");
    const contactId = await contactOf(conversationId);
    const foreignContact = await contactOf(await h.customerWrites(other, "254722800002"));
    const cookie = await signedInCookie(t.user.email, t.user.password);
    const post = (id: string, fields: Record<string, string>) =>
      callRoute(contactAction, formRequest(`/messaging/contacts/${id}`, { intent: "payment", ...fields }, { cookie }), { id });

    const page = await callRoute(contactLoader, getRequest(`/messaging/contacts/${contactId}`, { cookie }), { id: contactId });
    expect(page.status).toBe(200);
    expect((page.data as { shortcodes: unknown[] }).shortcodes).toHaveLength(1);

    const bad = await post(contactId, { amount: "0", description: "Viatu" });
    expect(bad.status).toBe(422);
    expect((bad.data as { paymentErrors: Record<string, string> }).paymentErrors.amount).toMatch(/shillings/);
    const noReference = await post(contactId, { amount: "100", description: "Viatu", reference: "not ok!" });
    expect((noReference.data as { paymentErrors: Record<string, string> }).paymentErrors.reference).toBeTruthy();

    const sent = await post(contactId, { amount: "1,500", description: "Viatu vya shule", expiresInMinutes: "60" });
    expect(sent.status).toBe(302);
    const requests = await rawQuery<{ amount_kes: number; source: string; source_id: string; conversation_id: string; created_by: string }>(
      `select amount_kes, source, source_id, conversation_id, created_by from payment_requests where organization_id = $1`,
      [t.organizationId],
    );
    expect(requests).toEqual([
      { amount_kes: 1500, source: "contact", source_id: contactId, conversation_id: conversationId, created_by: t.userId },
    ]);

    const foreign = await post(foreignContact, { amount: "100", description: "Viatu" });
    expect(foreign.status).toBe(404);
    expect((await post("not-an-id", { amount: "100", description: "Viatu" })).status).toBe(404);
    expect(await rawQuery(`select id from payment_requests where organization_id = $1`, [other.organizationId])).toEqual([]);
  });

  it("is not offered to a viewer, and refused to one who posts it", async () => {
    const t = await h.tenant("Duka la Mtazamaji");
    const contactId = await contactOf(await h.customerWrites(t, "254722800003"));
    await rawQuery(`update users set org_role = 'viewer' where id = $1`, [t.userId]);
    const cookie = await signedInCookie(t.user.email, t.user.password);
    const page = await callRoute(contactLoader, getRequest(`/messaging/contacts/${contactId}`, { cookie }), { id: contactId });
    expect((page.data as { shortcodes: unknown }).shortcodes).toBeNull();
    const posted = await callRoute(
      contactAction,
      formRequest(`/messaging/contacts/${contactId}`, { intent: "payment", amount: "100", description: "Viatu" }, { cookie }),
      { id: contactId },
    );
    // The guard sends a viewer to the refusal page (contacts:manage is not theirs).
    expect(posted.status).toBe(302);
    expect(posted.location).not.toContain(contactId);
    expect(await rawQuery(`select id from payment_requests where organization_id = $1`, [t.organizationId])).toEqual([]);
  });
});
