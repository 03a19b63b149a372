import { describe, expect, it } from "vitest";
import { createPaymentRequest } from "~/.server/domains/payments";
import {
  conversionSettings,
  conversionsOfConversation,
  markConverted,
  sendDueConversions,
  setConversionConsent,
} from "~/.server/domains/ads";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { action as conversionAction } from "~/routes/app/chat/conversion";
import { action as adsSettingsAction, loader as adsSettingsLoader } from "~/routes/app/settings/ads";
import { loader as threadLoader } from "~/routes/app/chat/conversation";
import type { InboundAd } from "@jumbe/sandbox/meta/types";
import { signedInCookie } from "../support/accounts";
import { callRoute, formRequest, getRequest } from "../support/http";
import { paymentRequestsHarnessForFile, requestRow, until } from "../support/payment-requests-harness";

// Conversions back to Meta (issue 77, decision 156): with the organisation's consent, a payment in a
// conversation from an ad queues one Purchase in the transaction that records it, and the job sends
// it to the WABA's dataset once, whatever the callbacks, retries and crashes; nothing without consent
// or an ad; too old is skipped; another organisation sees none of it.
const h = paymentRequestsHarnessForFile();
type Tenant = Awaited<ReturnType<typeof h.tenant>>;

const AD: InboundAd = { sourceId: "120226305854810726", headline: "Maji safi kwa nyumba yako", body: "Tuma ujumbe upate bei ya leo." };

const owner = (t: Tenant) => ({ user: { id: t.user.user.id }, organization: { id: t.organizationId }, role: "owner" as const });

/** The customer writes (from the ad unless told otherwise); answers their conversation's id. */
async function customerWrites(t: Tenant, from: string, ad: InboundAd | null = AD) {
  await h.meta.sandbox.sendInbound({
    phoneNumberId: t.phoneNumberId,
    from,
    name: "Achieng Otieno",
    text: "Habari, bei gani?",
    ...(ad ? { ad } : {}),
  });
  return until(
    async () =>
      (
        await rawQuery<{ id: string }>(
          `select v.id from conversations v join contacts c on c.id = v.contact_id
           where v.organization_id = $1 and c.phone = $2 and (v.ad_referral_id is not null or not $3)`,
          [t.organizationId, `+${from}`, !!ad],
        )
      )[0]?.id ?? null,
    (id) => id !== null,
  ) as Promise<string>;
}

const eventsOf = (organizationId: string) =>
  rawQuery<{
    id: string;
    event_name: string;
    value_cents: number | null;
    currency: string | null;
    source: string;
    idempotency_key: string;
    status: string;
    reason: string | null;
    attempts: number;
    ctwa_clid: string;
    waba_id: string;
  }>(
    `select id, event_name, value_cents, currency, source, idempotency_key, status, reason, attempts, ctwa_clid, waba_id
     from ad_conversion_events where organization_id = $1 order by created_at`,
    [organizationId],
  );

async function paid(t: Tenant, conversationId: string, from: string, amount = 1250) {
  const request = await createPaymentRequest(t.actor, conversationId, { amount, description: "Tanki la lita 1000" }, { source: "inbox" });
  await h.tap(t, from, request.id, "pay");
  await until(
    () => requestRow(request.id),
    (r) => r.status === "paid",
  );
  return request;
}

describe("conversions sent back to Meta", () => {
  it("gets the WABA's dataset on consent, queues one Purchase for a paid request and sends it once, across callbacks and a crash", async () => {
    const t = await h.tenant("Maji Safi Ltd");
    expect((await conversionSettings(t.organizationId)).enabled).toBe(false);
    const cookie = await signedInCookie(t.user.email, t.user.password);
    const on = await callRoute(adsSettingsAction, formRequest("/settings/ads", { intent: "conversions-on" }, { cookie }));
    expect(on.status).toBe(302);
    const settings = await conversionSettings(t.organizationId);
    expect(settings.enabled).toBe(true);
    expect(settings.datasets).toHaveLength(1);
    expect(
      h.meta.sandbox
        .calls()
        .filter((c) => c.step === "dataset")
        .map((c) => c.method),
    ).toEqual(["GET", "POST"]);
    const [logged] = await rawQuery<{ action: string }>(
      `select action from activity_logs where organization_id = $1 and action like 'Conversions%'`,
      [t.organizationId],
    );
    expect(logged?.action).toBe("Conversions to Meta turned on");
    const page = await callRoute(adsSettingsLoader, getRequest("/settings/ads", { cookie }));
    expect(page.data.settings.datasets[0]!.datasetId).toBe(settings.datasets[0]!.datasetId);

    const from = "254711000000"; // the M-Pesa sandbox pays at once, and sends its callback twice
    const conversationId = await customerWrites(t, from);
    const request = await paid(t, conversationId, from);
    const sent = await until(
      () => eventsOf(t.organizationId),
      (rows) => rows.length > 0 && rows.every((r) => r.status === "sent"),
    );
    const [referral] = await rawQuery<{ ctwa_clid: string }>(`select ctwa_clid from ad_referrals where organization_id = $1`, [
      t.organizationId,
    ]);
    expect(sent).toEqual([
      expect.objectContaining({
        event_name: "Purchase",
        value_cents: 125_000,
        currency: "KES",
        source: "payment_request",
        idempotency_key: `purchase:payment_request:${request.id}`,
        attempts: 1,
        ctwa_clid: referral!.ctwa_clid,
      }),
    ]);
    const received = () => h.meta.sandbox.conversionEvents();
    expect(received()).toEqual([
      expect.objectContaining({
        eventName: "Purchase",
        ctwaClid: referral!.ctwa_clid,
        value: 1250,
        currency: "KES",
        wabaId: sent[0]!.waba_id,
      }),
    ]);

    // The sender died after Meta's answer and before marking it: its claim runs out, the event is sent
    // again with the same event_id, and Meta keeps it once.
    await rawQuery(`update ad_conversion_events set status = 'sending', claimed_until = now() - interval '1 second' where id = $1`, [
      sent[0]!.id,
    ]);
    expect(await sendDueConversions()).toBe(1);
    expect((await eventsOf(t.organizationId)).map((r) => [r.status, r.attempts])).toEqual([["sent", 2]]);
    expect(received()).toHaveLength(1);
    // Nothing more to send, and the inbox shows the event as sent.
    expect(await sendDueConversions()).toBe(0);
    const thread = await callRoute(threadLoader, getRequest(`/chat/${conversationId}`, { cookie }), { id: conversationId });
    expect(thread.data.conversation.conversions).toMatchObject({
      canMark: true,
      events: [{ eventName: "Purchase", status: "sent", valueCents: 125_000 }],
    });

    // "Mark as converted": one lead for the ad, a second click changes nothing.
    const marked = await callRoute(conversionAction, formRequest(`/chat/${conversationId}/conversion`, { intent: "mark" }, { cookie }), {
      id: conversationId,
    });
    expect(marked.status).toBe(302);
    expect(marked.location).toBe(`/chat/${conversationId}`);
    expect(await markConverted({ organizationId: t.organizationId, userId: t.user.user.id }, conversationId)).toBe(false);
    await until(
      () => eventsOf(t.organizationId),
      (rows) => rows.length === 2 && rows.every((r) => r.status === "sent"),
    );
    expect(received().map((e) => [e.eventName, e.value])).toEqual([
      ["Purchase", 1250],
      ["LeadSubmitted", null],
    ]);

    // Another organisation: its member gets 404 for this conversation, and sees none of its events.
    const other = await h.tenant("Duka Jirani");
    const otherCookie = await signedInCookie(other.user.email, other.user.password);
    await setConversionConsent(owner(other), true);
    const foreign = await callRoute(
      conversionAction,
      formRequest(`/chat/${conversationId}/conversion`, { intent: "mark" }, { cookie: otherCookie }),
      {
        id: conversationId,
      },
    );
    expect(foreign.status).toBe(404);
    await expect(markConverted({ organizationId: other.organizationId, userId: other.user.user.id }, conversationId)).rejects.toSatisfy(
      (e: unknown) => isRefusal(e) && e.status === 404,
    );
    expect((await conversionsOfConversation(other.organizationId, conversationId)).events).toEqual([]);
    expect((await conversionSettings(other.organizationId)).counts).toEqual({ queued: 0, sent: 0, failed: 0, skipped: 0 });
  });

  it("queues nothing without consent, nothing without an ad, and nothing for an ad entered over 7 days before", async () => {
    const t = await h.tenant("Tank Masters");
    const fromAd = "254711000000";
    const conversationId = await customerWrites(t, fromAd);
    await paid(t, conversationId, fromAd, 500);
    expect(await eventsOf(t.organizationId)).toEqual([]);
    await expect(markConverted({ organizationId: t.organizationId, userId: t.user.user.id }, conversationId)).rejects.toSatisfy(
      (e: unknown) => isRefusal(e) && e.status === 409,
    );

    // Another organisation consents; its customer wrote without an ad.
    const u = await h.tenant("Maji Baridi");
    await setConversionConsent(owner(u), true);
    const plainConversation = await customerWrites(u, fromAd, null);
    await paid(u, plainConversation, fromAd, 700);
    expect(await eventsOf(u.organizationId)).toEqual([]);
    await expect(markConverted({ organizationId: u.organizationId, userId: u.user.user.id }, plainConversation)).rejects.toSatisfy(
      (e: unknown) => isRefusal(e) && e.status === 409,
    );

    // Consent given, but the ad was entered 8 days before the payment.
    await setConversionConsent(owner(t), true);
    await rawQuery(`update conversations set ad_entry_at = now() - interval '8 days' where id = $1`, [conversationId]);
    await paid(t, conversationId, fromAd, 900);
    expect(await eventsOf(t.organizationId)).toEqual([]);
    expect((await conversionsOfConversation(t.organizationId, conversationId)).canMark).toBe(false);
  });

  it("skips an event older than 7 days, fails what Meta refuses alone, and tries again after a 5xx", async () => {
    const t = await h.tenant("Kikapu Fresh");
    await setConversionConsent(owner(t), true);
    const first = await customerWrites(t, "254711000000");
    const second = await customerWrites(t, "254711000002");
    const third = await customerWrites(t, "254711000003");
    const actor = { organizationId: t.organizationId, userId: t.user.user.id };
    for (const id of [first, second, third]) expect(await markConverted(actor, id)).toBe(true);
    const [old, refused, fine] = await eventsOf(t.organizationId);
    await rawQuery(`update ad_conversion_events set event_time = now() - interval '8 days' where id = $1`, [old!.id]);
    await rawQuery(`update ad_conversion_events set ctwa_clid = '' where id = $1`, [refused!.id]);
    // Meta is down for the first request (the client's own retries included).
    h.meta.sandbox.injectFault({
      step: "dataset.events",
      error: { status: 500, code: 2, isTransient: true, message: "Service temporarily unavailable" },
      times: 3,
    });
    expect(await sendDueConversions()).toBe(2);
    let rows = await eventsOf(t.organizationId);
    expect(rows.map((r) => r.status)).toEqual(["skipped", "queued", "queued"]);
    expect(rows[0]!.reason).toMatch(/7 days/);
    expect(rows[1]!.reason).toMatch(/temporarily unavailable/);
    // Not before its backoff; then Meta refuses the batch for one event: that one fails, the other is sent.
    expect(await sendDueConversions()).toBe(0);
    await rawQuery(`update ad_conversion_events set next_attempt_at = now() where status = 'queued' and organization_id = $1`, [
      t.organizationId,
    ]);
    expect(await sendDueConversions()).toBe(2);
    rows = await eventsOf(t.organizationId);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ["skipped", 0],
      ["failed", 2],
      ["sent", 2],
    ]);
    expect(rows[1]!.reason).toMatch(/ctwa_clid/);
    expect(h.meta.sandbox.conversionEvents().map((e) => e.eventId)).toEqual([fine!.idempotency_key]);
  });
});
