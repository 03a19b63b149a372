import { describe, expect, it } from "vitest";
import { conversionSettings, markConverted, setConversionConsent, setLeadTags } from "~/.server/domains/ads";
import { bulkTag } from "~/.server/domains/contacts/bulk";
import { updateContact } from "~/.server/domains/contacts/manage";
import { createRule } from "~/.server/domains/automations/rules";
import { createFlow, getFlow, publishFlow } from "~/.server/domains/automations/flows/store";
import { saveStep } from "~/.server/domains/automations/flows/builder";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { sql } from "drizzle-orm";
import { action as adsSettingsAction, loader as adsSettingsLoader } from "~/routes/app/settings/ads";
import type { InboundAd } from "@jumbe/sandbox/meta/types";
import { signedInCookie } from "../support/accounts";
import { callRoute, formRequest, getRequest } from "../support/http";
import { paymentRequestsHarnessForFile, until } from "../support/payment-requests-harness";

// Conversions from a tag and from a flow's end (issue 77, decision 158): a tag the organisation chose
// as "converted", added to a contact whose conversation came from an ad, queues one LeadSubmitted in
// the transaction that writes the tag, whatever the path; so does a flow's end step marked as a
// conversion; concurrent marks are one event; nothing without consent, an ad, or for another tenant.
const h = paymentRequestsHarnessForFile();
type Tenant = Awaited<ReturnType<typeof h.tenant>>;
type StepIn = Parameters<typeof saveStep>[2];

const AD: InboundAd = { sourceId: "120226305854810726", headline: "Shamba bora", body: "Tuma ujumbe upate ushauri." };

const owner = (t: Tenant) => ({ user: { id: t.user.user.id }, organization: { id: t.organizationId }, role: "owner" as const });

/** The customer writes (from the ad unless told otherwise); answers their conversation's and contact's ids. */
async function customerWrites(t: Tenant, from: string, ad: InboundAd | null = AD, text = "Habari, bei gani?") {
  await h.meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, from, name: "Wanjiru Kamau", text, ...(ad ? { ad } : {}) });
  return until(
    async () =>
      (
        await rawQuery<{ id: string; contact_id: string }>(
          `select v.id, v.contact_id from conversations v join contacts c on c.id = v.contact_id
           where v.organization_id = $1 and c.phone = $2 and (v.ad_referral_id is not null or not $3)`,
          [t.organizationId, `+${from}`, !!ad],
        )
      )[0] ?? null,
    (row) => row !== null,
  ) as Promise<{ id: string; contact_id: string }>;
}

const eventsOf = (organizationId: string) =>
  rawQuery<{ event_name: string; source: string; source_id: string | null; idempotency_key: string; ad_referral_id: string }>(
    `select event_name, source, source_id, idempotency_key, ad_referral_id from ad_conversion_events
     where organization_id = $1 order by created_at`,
    [organizationId],
  );

const actorOf = (t: Tenant) => ({ organizationId: t.organizationId, userId: t.user.user.id });

async function consenting(name: string, tags: string[] = ["lead", "qualified"]) {
  const t = await h.tenant(name);
  await setConversionConsent(owner(t), true);
  await setLeadTags(owner(t), tags);
  return t;
}

describe("conversions from a tag", () => {
  it("is chosen in Settings → Ads (logged), and a tag added by two paths, removed and added again, queues one lead", async () => {
    const t = await h.tenant("Shamba Bora Ltd");
    await setConversionConsent(owner(t), true);
    const cookie = await signedInCookie(t.user.email, t.user.password);
    const saved = await callRoute(
      adsSettingsAction,
      formRequest("/settings/ads", { intent: "lead-tags", leadTags: " Lead, qualified ,lead" }, { cookie }),
    );
    expect(saved.status).toBe(302);
    expect((await conversionSettings(t.organizationId)).leadTags).toEqual(["lead", "qualified"]);
    const page = await callRoute(adsSettingsLoader, getRequest("/settings/ads", { cookie }));
    expect(page.data.settings.leadTags).toEqual(["lead", "qualified"]);
    const logged = await rawQuery<{ action: string }>(
      `select action from activity_logs where organization_id = $1 and action like 'Tags%'`,
      [t.organizationId],
    );
    expect(logged.map((l) => l.action)).toEqual(["Tags that mean converted changed"]);
    // Too long a tag: the form again with its words (400), nothing saved.
    const refused = await callRoute(
      adsSettingsAction,
      formRequest("/settings/ads", { intent: "lead-tags", leadTags: "x".repeat(41) }, { cookie }),
    );
    expect(refused.status).toBe(400);
    expect((await conversionSettings(t.organizationId)).leadTags).toEqual(["lead", "qualified"]);

    const { id: conversationId, contact_id: contactId } = await customerWrites(t, "254722000001");
    // A tag that does not convert: nothing.
    await updateContact(actorOf(t), contactId, { tags: ["vip"] });
    expect(await eventsOf(t.organizationId)).toEqual([]);
    // The contact page adds "lead": one LeadSubmitted, in the same transaction (there as soon as it returns).
    await updateContact(actorOf(t), contactId, { tags: ["vip", "lead"] });
    const [referral] = await rawQuery<{ ad_referral_id: string }>(`select ad_referral_id from conversations where id = $1`, [
      conversationId,
    ]);
    expect(await eventsOf(t.organizationId)).toEqual([
      {
        event_name: "LeadSubmitted",
        source: "tag",
        source_id: "lead",
        idempotency_key: `lead:ad:${referral!.ad_referral_id}`,
        ad_referral_id: referral!.ad_referral_id,
      },
    ]);
    // Removed, added again by the bulk action, the other converting tag too, and "Mark as converted": still one.
    await updateContact(actorOf(t), contactId, { tags: ["vip"] });
    expect(await bulkTag(actorOf(t), { ids: [contactId] }, ["lead", "qualified"])).toBe(1);
    expect(await markConverted(actorOf(t), conversationId)).toBe(false);
    expect(await eventsOf(t.organizationId)).toHaveLength(1);
    // The sender's job was queued with it, and it reaches Meta once.
    await until(
      async () => h.meta.sandbox.conversionEvents(),
      (events) => events.length === 1,
    );
    expect(h.meta.sandbox.conversionEvents()[0]).toMatchObject({ eventName: "LeadSubmitted" });
  });

  it("queues nothing without consent, on a conversation not from an ad, or for another organisation's tag names", async () => {
    // Tags chosen, consent not given.
    const t = await h.tenant("Mbegu Safi");
    await setLeadTags(owner(t), ["lead"]);
    const fromAd = await customerWrites(t, "254722000002");
    await updateContact(actorOf(t), fromAd.contact_id, { tags: ["lead"] });
    expect(await eventsOf(t.organizationId)).toEqual([]);

    // Consent and tags, but the customer wrote without an ad.
    const u = await consenting("Mbolea Bora");
    const plain = await customerWrites(u, "254722000003", null);
    await updateContact(actorOf(u), plain.contact_id, { tags: ["lead"] });
    expect(await eventsOf(u.organizationId)).toEqual([]);

    // Another organisation chose "mteja"; this one did not: its contact's "mteja" queues nothing.
    const v = await consenting("Kilimo Hai", ["vip"]);
    await consenting("Jirani Mbaya", ["mteja"]);
    const fromAdV = await customerWrites(v, "254722000004");
    await bulkTag(actorOf(v), { ids: [fromAdV.contact_id] }, ["mteja"]);
    expect(await eventsOf(v.organizationId)).toEqual([]);
    // An ad entered over 7 days before: nothing either.
    await rawQuery(`update conversations set ad_entry_at = now() - interval '8 days' where id = $1`, [fromAdV.id]);
    await updateContact(actorOf(v), fromAdV.contact_id, { tags: ["mteja", "vip"] });
    expect(await eventsOf(v.organizationId)).toEqual([]);
  });

  it("gives one event for concurrent tag writes and concurrent 'Mark as converted' posts", async () => {
    const t = await consenting("Maziwa Fresh");
    const first = await customerWrites(t, "254722000005");
    // Two transactions adding the converting tags at the same time (two paths), with a mark between them.
    const addIn = (tags: string[]) =>
      db().transaction(async (tx) => {
        await tx.execute(
          sql`update contacts set tags = array(select distinct x from unnest(tags || ${sql.param(tags)}::text[]) x order by x)
              where id = ${first.contact_id}`,
        );
      });
    await Promise.all([
      addIn(["lead"]),
      bulkTag(actorOf(t), { ids: [first.contact_id] }, ["qualified"]),
      markConverted(actorOf(t), first.id),
    ]);
    expect(await eventsOf(t.organizationId)).toHaveLength(1);

    // Two "Mark as converted" posts at once on another conversation: one event, the other answers false.
    const second = await customerWrites(t, "254722000006");
    const answers = await Promise.all([markConverted(actorOf(t), second.id), markConverted(actorOf(t), second.id)]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    const events = await eventsOf(t.organizationId);
    expect(events).toHaveLength(2);
    expect(new Set(events.map((e) => e.idempotency_key)).size).toBe(2);
    // A foreign conversation is 404 to this organisation.
    const other = await consenting("Maziwa Jirani");
    await expect(markConverted(actorOf(other), second.id)).rejects.toSatisfy((e: unknown) => isRefusal(e) && e.status === 404);
  });
});

describe("conversions from a flow's end", () => {
  async function leadFlow(t: Tenant, conversion: boolean) {
    const flow = await createFlow(t.actor, { name: "Jiunge" });
    await saveStep(t.actor, flow.id, { type: "message", text: "Karibu! Tutakupigia simu." } as StepIn);
    await saveStep(t.actor, flow.id, { type: "end", conversion } as StepIn);
    expect((await getFlow(t.organizationId, flow.id)).steps.at(-1)).toMatchObject({ type: "end", conversion });
    await publishFlow(t.actor, flow.id);
    await createRule(t.actor, { name: "Jiunge", matchType: "exact", keywords: ["jiunge"], flowId: flow.id });
    return flow;
  }

  const completed = (organizationId: string) =>
    until(
      () => rawQuery<{ id: string }>(`select id from flow_sessions where organization_id = $1 and status = 'completed'`, [organizationId]),
      (rows) => rows.length > 0,
    );

  it("queues one lead when a customer from an ad reaches an end marked as a conversion, and none for another tenant's flow", async () => {
    const t = await consenting("Nyumba Smart", []);
    await leadFlow(t, true);
    const from = "254722000007";
    const { id: conversationId } = await customerWrites(t, from);
    await customerWrites(t, from, null, "jiunge");
    const [session] = await completed(t.organizationId);
    const events = await eventsOf(t.organizationId);
    expect(events).toEqual([expect.objectContaining({ event_name: "LeadSubmitted", source: "flow_end", source_id: session!.id })]);
    // The flow again: still one lead for this ad entry; "Mark as converted" adds none.
    await customerWrites(t, from, null, "jiunge");
    await until(
      () => rawQuery(`select id from flow_sessions where organization_id = $1 and status = 'completed'`, [t.organizationId]),
      (rows) => rows.length === 2,
    );
    expect(await markConverted(actorOf(t), conversationId)).toBe(false);
    expect(await eventsOf(t.organizationId)).toHaveLength(1);

    // Another organisation's flow (not a conversion end) with the same keyword: nothing for it, nothing more here.
    const u = await consenting("Nyumba Jirani", []);
    await leadFlow(u, false);
    await customerWrites(u, "254722000008");
    await customerWrites(u, "254722000008", null, "jiunge");
    await completed(u.organizationId);
    expect(await eventsOf(u.organizationId)).toEqual([]);
    expect(await eventsOf(t.organizationId)).toHaveLength(1);
  });
});
