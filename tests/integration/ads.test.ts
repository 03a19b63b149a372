import { describe, expect, it, vi } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { queueMessage, type SendRequest } from "~/.server/domains/messaging/queue";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { changeWallet, walletState } from "~/.server/domains/billing/ledger";
import { findConversation } from "~/.server/domains/inbox/list";
import { referralOf } from "~/.server/domains/ads";
import { contactFilterChoices } from "~/.server/domains/contacts";
import { countMatching } from "~/.server/domains/contacts/page";
import { exportFilter } from "~/.server/domains/contacts/export";
import { contactFilterOf, readContactFilterParams } from "~/lib/contact-filter";
import type { InboundAd } from "@jumbe/sandbox/meta/types";
import { createVerifiedUser } from "../support/accounts";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedTemplate, recipient } from "../support/sending-kit";
import { sign } from "../support/whatsapp";

// Click-to-WhatsApp ads (issue 77, decision 154): the ad's referral on the customer's first message is
// kept once, on the conversation and the contact (first and last touch), the inbox shows it, and an
// answer within 24 hours opens Meta's 72-hour free entry window in which nothing is charged.

const meta = metaSandboxForFile();

const AD: InboundAd = {
  sourceId: "120226305854810726",
  headline: "Maji safi kwa nyumba yako",
  body: "Tuma ujumbe upate bei ya leo.",
  imageUrl: "https://scontent.example/ad.jpg",
  welcomeMessage: "Karibu! Tukusaidie vipi?",
};

async function tenant(name: string, balanceCents = 10_000) {
  const user = await createVerifiedUser({ businessName: name });
  const organizationId = user.organization.id;
  await rawQuery(`update organizations set billing_type = 'prepaid', plan_type = 'Growth' where id = $1`, [organizationId]);
  await db().transaction((tx) =>
    changeWallet(tx, { organizationId, kind: "adjustment", amountCents: balanceCents, description: "Opening" }),
  );
  const connection = await meta.graph.connect(organizationId, name);
  await approvedTemplate(meta.graph, { organizationId, ...connection });
  return { organizationId, ...connection };
}

/** The customer writes (from an ad, or not) and Jumbe stores it; answers the stored message's conversation. */
async function customerWrites(phoneNumberId: string, from: string, ad?: InboundAd, text = "Habari! Naomba bei.") {
  const { wamid } = await meta.sandbox.sendInbound({ phoneNumberId, from, name: "Achieng Otieno", text, ...(ad ? { ad } : {}) });
  return await vi.waitFor(
    async () => {
      await drainJobs();
      const [row] = await rawQuery<{ id: string; conversation_id: string; contact_id: string }>(
        `select m.id, v.id as conversation_id, m.contact_id from messages m
         join conversations v on v.organization_id = m.organization_id and v.phone_number_id = m.phone_number_id and v.contact_id = m.contact_id
         where m.wamid = $1`,
        [wamid],
      );
      expect(row).toBeDefined();
      return { ...row!, wamid };
    },
    { timeout: 30_000, interval: 20 },
  );
}

const template = (to: string): SendRequest => ({
  to,
  content: { kind: "template", template: { name: "payment_received", parameters: ["KES 500"] } },
  source: "api",
});

/** Sends what is queued and waits until Meta's statuses settled each message. */
async function sendAll(ids: string[]) {
  await drainDispatcher();
  return await vi.waitFor(
    async () => {
      await drainJobs();
      const rows = await rawQuery<{ id: string; status: string; charge_state: string | null; pricing_type: string | null }>(
        `select id, status, charge_state, pricing_type from messages where id = any($1::uuid[])`,
        [ids],
      );
      expect(rows.every((r) => r.status === "read")).toBe(true);
      return new Map(rows.map((r) => [r.id, r]));
    },
    { timeout: 30_000, interval: 20 },
  );
}

describe("a customer from a Click-to-WhatsApp ad", () => {
  it("keeps the ad once on the conversation and the contact, and the inbox shows it", async () => {
    const t = await tenant("Maji Safi Ltd");
    const from = "254711222333";
    const first = await customerWrites(t.phoneNumberId, from, AD);
    const [stored] = await rawQuery<Record<string, unknown>>(
      `select source_id, source_type, headline, body, image_url, ctwa_clid, welcome_message, message_id, contact_id, conversation_id
       from ad_referrals where organization_id = $1`,
      [t.organizationId],
    );
    expect(stored).toMatchObject({
      source_id: AD.sourceId,
      source_type: "ad",
      headline: AD.headline,
      body: AD.body,
      image_url: AD.imageUrl,
      welcome_message: AD.welcomeMessage,
      message_id: first.id,
      contact_id: first.contact_id,
      conversation_id: first.conversation_id,
    });
    expect(String(stored!.ctwa_clid)).toMatch(/^ARA/);

    // Meta delivers the same webhook again: still one referral.
    const delivery = meta.sandbox.deliveries().find((d) => JSON.stringify(JSON.parse(d.body)).includes(first.wamid))!;
    expect((await meta.receiver.post(delivery.body, sign(delivery.body))).status).toBe(200);
    await drainJobs();
    expect(await rawQuery(`select 1 from ad_referrals where organization_id = $1`, [t.organizationId])).toHaveLength(1);

    // A later message without a referral moves nothing; a second ad is the last touch, the first stays first.
    await customerWrites(t.phoneNumberId, from, undefined, "Asante");
    const second = await customerWrites(t.phoneNumberId, from, { ...AD, sourceId: "120226305854810999", headline: "Tanki la lita 1000" });
    const [contact] = await rawQuery<{ first: string; last: string }>(
      `select f.source_id as first, l.source_id as last from contacts c
       join ad_referrals f on f.id = c.first_ad_referral_id join ad_referrals l on l.id = c.last_ad_referral_id where c.id = $1`,
      [first.contact_id],
    );
    expect(contact).toEqual({ first: AD.sourceId, last: "120226305854810999" });

    const conversation = await findConversation(t.organizationId, second.conversation_id);
    expect(conversation?.ad).toEqual({
      headline: "Tanki la lita 1000",
      body: AD.body,
      sourceUrl: expect.stringMatching(/^https:\/\/fb\.me\//),
      // Its picture's address is neither Meta's CDN nor the sandbox: never fetched, so none (ads-picture.test.ts).
      picture: null,
    });
    // Another tenant's conversation id answers nothing.
    const other = await tenant("Duka Jirani");
    expect(await findConversation(other.organizationId, second.conversation_id)).toBeNull();
  });

  it("does not charge what is sent inside the free entry window an answer within 24 hours opens", async () => {
    const t = await tenant("Tank Masters");
    const from = "254711444555";
    const entry = await customerWrites(t.phoneNumberId, from, AD);

    // The answer (a template, which would cost KES 2.00) opens the window: free, its hold released.
    const answer = await queueMessage(t.organizationId, template(`+${from}`));
    expect(await walletState(db(), t.organizationId)).toMatchObject({ heldCents: 200 });
    const sent = await sendAll([answer.id]);
    expect(sent.get(answer.id)).toMatchObject({ charge_state: "free", pricing_type: "free_entry_point" });
    expect(await walletState(db(), t.organizationId)).toMatchObject({ balanceCents: 10_000, heldCents: 0 });
    const [opened] = await rawQuery<{ hours: number }>(
      `select round(extract(epoch from free_entry_until - (select accepted_at from messages where id = $2)) / 3600)::int as hours
       from conversations where id = $1`,
      [entry.conversation_id, answer.id],
    );
    expect(opened).toEqual({ hours: 72 });
    const conversation = await findConversation(t.organizationId, entry.conversation_id);
    expect(Date.parse(conversation!.freeEntryUntil!)).toBeGreaterThan(Date.now() + 71 * 3600_000);

    // Inside the window a second template is free too.
    const second = await queueMessage(t.organizationId, template(`+${from}`));
    expect((await sendAll([second.id])).get(second.id)).toMatchObject({ charge_state: "free" });

    // Once the window has ended, a template is charged again.
    await rawQuery(`update conversations set free_entry_until = now() - interval '1 minute' where id = $1`, [entry.conversation_id]);
    const later = await queueMessage(t.organizationId, template(`+${from}`));
    expect((await sendAll([later.id])).get(later.id)).toMatchObject({ charge_state: "charged" });
    expect(await walletState(db(), t.organizationId)).toMatchObject({ balanceCents: 9_800, heldCents: 0 });

    // A customer who did not come from an ad pays as before.
    await customerWrites(t.phoneNumberId, "254711444666");
    const plain = await queueMessage(t.organizationId, template("+254711444666"));
    expect((await sendAll([plain.id])).get(plain.id)).toMatchObject({ charge_state: "charged" });
  });

  it("opens no free window for an answer more than 24 hours after the ad entry", async () => {
    const t = await tenant("Late Replies Ltd");
    const from = recipient(7).slice(1);
    const entry = await customerWrites(t.phoneNumberId, from, AD);
    await rawQuery(`update conversations set ad_entry_at = now() - interval '25 hours' where id = $1`, [entry.conversation_id]);
    const answer = await queueMessage(t.organizationId, template(`+${from}`));
    expect((await sendAll([answer.id])).get(answer.id)).toMatchObject({ charge_state: "charged" });
    const [row] = await rawQuery<{ free_entry_until: string | null }>(`select free_entry_until from conversations where id = $1`, [
      entry.conversation_id,
    ]);
    expect(row!.free_entry_until).toBeNull();
  });
});

describe("contacts by the ad that brought them", () => {
  it("filters the contact book, its segments and exports by one ad or any, within the tenant", async () => {
    const t = await tenant("Solar Kisumu");
    const other = await tenant("Solar Jirani");
    await customerWrites(t.phoneNumberId, "254722000001", AD);
    await customerWrites(t.phoneNumberId, "254722000002", { ...AD, sourceId: "120226300000000002", headline: "Taa za sola" });
    await customerWrites(t.phoneNumberId, "254722000003");
    // The other tenant's customer came from an ad with the same id: never counted here.
    await customerWrites(other.phoneNumberId, "254722000004", AD);

    const count = (query: string) => countMatching(t.organizationId, contactFilterOf(readContactFilterParams(new URLSearchParams(query))));
    expect(await count("")).toMatchObject({ count: 3 });
    expect(await count(`ad=${AD.sourceId}`)).toMatchObject({ count: 1 });
    expect(await count("ad=any")).toMatchObject({ count: 2 });
    // A malformed ad id is dropped, as the tab drops any value it does not know.
    expect(readContactFilterParams(new URLSearchParams("ad=1%27%20or%201%3D1"))).toEqual({});

    const choices = await contactFilterChoices(t.organizationId);
    expect(choices.ads).toEqual([
      { id: "120226300000000002", headline: "Taa za sola" },
      { id: AD.sourceId, headline: AD.headline },
    ]);
    expect(await contactFilterChoices(other.organizationId)).toMatchObject({ ads: [{ id: AD.sourceId }] });

    const exported = exportFilter(new URLSearchParams(`ad=${AD.sourceId}`));
    expect(exported.filter.ad).toBe(AD.sourceId);
    expect(exported.description).toBe(`from ad ${AD.sourceId}`);
  });
});

describe("reading a referral", () => {
  it("keeps web addresses only and needs the ad's id", () => {
    expect(referralOf({ referral: { source_id: "", headline: "x" } })).toBeNull();
    expect(referralOf({ referral: "ad" })).toBeNull();
    const read = referralOf({
      referral: {
        source_id: "123456",
        source_type: "ad",
        source_url: "javascript:alert(1)",
        image_url: "http://x/y.png",
        headline: " Hi ",
      },
    });
    expect(read).toMatchObject({ sourceId: "123456", sourceType: "ad", sourceUrl: null, imageUrl: "http://x/y.png", headline: "Hi" });
  });
});
