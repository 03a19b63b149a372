import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { serviceWindowClosesAt } from "~/.server/domains/messaging/sender";
import { queueMessage } from "~/.server/domains/messaging/queue";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import type { InboundInput } from "@jumbe/sandbox/meta/types";
import { createVerifiedUser } from "../support/accounts";
import { startGraphSandbox } from "../support/sandbox-waba";
import { startReceiver } from "../support/whatsapp";

// Customers' messages of every kind, from the sandbox's signed webhooks through the real receiver and
// queue: each is kept (in order), names its contact (by number, or by Meta's business-scoped user
// id when the number is hidden), and opens the 24-hour service window.

let graph: Awaited<ReturnType<typeof startGraphSandbox>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  graph = await startGraphSandbox({ webhookUrl: receiver.url });
});

afterAll(async () => {
  await graph.close();
  await receiver.close();
});

beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test", GRAPH_API_BASE_URL: graph.graphBase, GRAPH_API_TIMEOUT_MS: "3000" }));
  graph.sandbox.reset();
});

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  return { organizationId: user.organization.id, ...(await graph.connect(user.organization.id, name)) };
}

/** Sends each message and waits until Jumbe stored it. */
async function arrive(inputs: InboundInput[]) {
  const wamids: string[] = [];
  for (const input of inputs) wamids.push((await graph.sandbox.sendInbound(input)).wamid);
  await vi.waitFor(
    async () => {
      await drainJobs();
      const rows = await rawQuery<{ n: number }>(`select count(*)::int as n from messages where wamid = any($1::text[])`, [wamids]);
      expect(rows[0]!.n).toBe(wamids.length);
    },
    { timeout: 30_000, interval: 20 },
  );
  return wamids;
}

describe("inbound messages", () => {
  it("keeps every kind, in order, as one contact with an open window", async () => {
    const t = await tenant("Kisumu Boda Sacco");
    const from = "254700111222";
    const base = { phoneNumberId: t.phoneNumberId, from, name: "Otieno Owino" };
    const wamids = await arrive([{ ...base, type: "text", text: "Habari, nataka kujiunga." }]);
    // The business answers with buttons; the customer's replies quote that message.
    const question = await queueMessage(t.organizationId, {
      to: `+${from}`,
      content: { kind: "interactive", interactive: { type: "button", body: "Jiunge sasa?", buttons: [{ id: "yes", title: "Ndiyo" }] } },
      source: "api",
    });
    await drainDispatcher();
    const asked = (await rawQuery<{ wamid: string }>(`select wamid from messages where id = $1`, [question.id]))[0]!.wamid;
    const kinds: InboundInput[] = [
      { ...base, type: "location", latitude: -0.0917, longitude: 34.768, locationName: "Kisumu stage", address: "Oginga Odinga St" },
      { ...base, type: "contacts", contactName: "Akinyi Odhiambo", contactPhone: "+254711000333" },
      { ...base, type: "button", payload: "JOIN", text: "Jiunge", contextId: asked },
      { ...base, type: "button_reply", replyId: "yes", title: "Ndiyo", contextId: asked },
      { ...base, type: "list_reply", replyId: "monthly", title: "Monthly", description: "KES 500 a month", contextId: asked },
      { ...base, type: "unsupported" },
    ];
    wamids.push(...(await arrive(kinds)));
    // A reaction to the first.
    wamids.push(...(await arrive([{ ...base, type: "reaction", messageId: wamids[0]!, emoji: "🙏" }])));

    const rows = await rawQuery<{ wamid: string; message_type: string; body: string; contact_id: string; direction: string }>(
      `select wamid, message_type, body, contact_id, direction from messages where organization_id = $1 and direction = 'inbound'
       order by sent_at, seq`,
      [t.organizationId],
    );
    expect(rows.map((r) => r.wamid)).toEqual(wamids);
    expect(rows.map((r) => r.message_type)).toEqual([
      "text",
      "location",
      "contacts",
      "button",
      "interactive",
      "interactive",
      "unsupported",
      "reaction",
    ]);
    expect(rows.every((r) => r.direction === "inbound")).toBe(true);
    // What each says, for lists and the inbox.
    expect(rows[0]!.body).toBe("Habari, nataka kujiunga.");
    expect(rows[1]!.body).toContain("Kisumu stage");
    expect(rows[2]!.body).toContain("Akinyi Odhiambo");
    expect(rows[3]!.body).toBe("Jiunge");
    expect(rows[4]!.body).toBe("Ndiyo");
    expect(rows[5]!.body).toBe("Monthly");
    expect(rows[7]!.body).toContain("🙏");

    // One contact, named by the profile, with the window open for 24 hours from the latest message.
    expect(new Set(rows.map((r) => r.contact_id)).size).toBe(1);
    const contacts = await rawQuery<{ name: string; phone: string; wa_id: string }>(
      `select name, phone, wa_id from contacts where organization_id = $1`,
      [t.organizationId],
    );
    expect(contacts).toEqual([{ name: "Otieno Owino", phone: "+254700111222", wa_id: from }]);
    const closes = await serviceWindowClosesAt(t.organizationId, t.phoneNumberId, "+254700111222");
    expect(closes).not.toBeNull();
    expect(closes!.getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000);
  });

  it("names the contact by the WhatsApp profile without its reordering controls (issue 38)", async () => {
    const t = await tenant("Lamu Dhow Tours");
    // A right-to-left override makes "Acme\u202Etxt.exe" read as "Acmeexe.txt" wherever it is shown.
    await arrive([
      { phoneNumberId: t.phoneNumberId, from: "254700333444", name: "\u202EAcme\u202Etxt.exe\u2066", type: "text", text: "Hi" },
    ]);
    const [contact] = await rawQuery<{ name: string }>(`select name from contacts where organization_id = $1`, [t.organizationId]);
    expect(contact!.name).toBe("Acmetxt.exe");
  });

  it("renames a known contact by their new profile name and moves last seen forward only", async () => {
    const t = await tenant("Kitale Seed Stores");
    const from = "254700555666";
    // Written two minutes ago by Meta's timestamp (the clock last seen follows), so the next is later
    // without waiting for the wall clock's next second.
    await arrive([{ phoneNumberId: t.phoneNumberId, from, name: "Chebet", type: "text", text: "Mbegu za mahindi?", ageSeconds: 120 }]);
    const seen = async () =>
      (
        await rawQuery<{ name: string; last_seen_at: string }>(
          `select name, last_seen_at::text from contacts where organization_id = $1 and wa_id = $2`,
          [t.organizationId, from],
        )
      )[0]!;
    const first = await seen();
    // Written again under a new profile name: the same contact, renamed, seen later.
    await arrive([{ phoneNumberId: t.phoneNumberId, from, name: "Chebet Kiprop", type: "text", text: "Nataka kilo 10." }]);
    const second = await seen();
    expect(second.name).toBe("Chebet Kiprop");
    expect(Date.parse(second.last_seen_at)).toBeGreaterThan(Date.parse(first.last_seen_at));
    // A delivery Meta retried late (an hour old) names them but never moves last seen back.
    await arrive([{ phoneNumberId: t.phoneNumberId, from, name: "Chebet K.", type: "text", text: "Ujumbe wa zamani", ageSeconds: 3600 }]);
    const third = await seen();
    expect(third.name).toBe("Chebet K.");
    expect(third.last_seen_at).toBe(second.last_seen_at);
    const count = await rawQuery<{ n: number }>(`select count(*)::int as n from contacts where organization_id = $1`, [t.organizationId]);
    expect(count[0]!.n).toBe(1);
  });

  it("keeps last seen to the minute: a known person's message within it leaves their row unwritten", async () => {
    const t = await tenant("Nyeri Dairy Cooperative");
    const from = "254700777888";
    const row = async () =>
      (
        await rawQuery<{ id: string; last_seen_at: string; version: string }>(
          `select id, last_seen_at::text, xmin::text as version from contacts where organization_id = $1 and wa_id = $2`,
          [t.organizationId, from],
        )
      )[0]!;
    await arrive([{ phoneNumberId: t.phoneNumberId, from, name: "Wanjiru", type: "text", text: "Maziwa lita 20", ageSeconds: 90 }]);
    const first = await row();
    // Thirty seconds later, same name: the same row version (not updated), last seen kept.
    await arrive([{ phoneNumberId: t.phoneNumberId, from, name: "Wanjiru", type: "text", text: "Na siagi", ageSeconds: 60 }]);
    const second = await row();
    expect(second).toEqual(first);
    // Ninety seconds after the stored time: written, last seen moves forward.
    await arrive([{ phoneNumberId: t.phoneNumberId, from, name: "Wanjiru", type: "text", text: "Asante" }]);
    const third = await row();
    expect(third.id).toBe(first.id);
    expect(Date.parse(third.last_seen_at) - Date.parse(first.last_seen_at)).toBeGreaterThan(80_000);
    // Every message is stored against the one contact.
    const stored = await rawQuery<{ contact_id: string }>(`select contact_id from messages where organization_id = $1`, [t.organizationId]);
    expect(stored.map((m) => m.contact_id)).toEqual([first.id, first.id, first.id]);
  });

  it("keeps a person who hides their number as one contact by Meta's user id, and joins their number when it appears", async () => {
    const t = await tenant("Thika Fresh Produce");
    const userId = "KE.7712345678";
    await arrive([{ phoneNumberId: t.phoneNumberId, userId, username: "mama_mboga", name: "Mama Mboga", text: "Bei ya sukuma?" }]);
    let contacts = await rawQuery<{ id: string; phone: string | null; wa_id: string | null; user_id: string }>(
      `select id, phone, wa_id, user_id from contacts where organization_id = $1`,
      [t.organizationId],
    );
    expect(contacts).toEqual([{ id: expect.any(String), phone: null, wa_id: null, user_id: userId }]);
    const first = contacts[0]!.id;
    // The window is the contact's, whichever way they are known.
    expect(
      await rawQuery(`select 1 from conversations where contact_id = $1 and last_inbound_at > now() - interval '1 minute'`, [first]),
    ).toHaveLength(1);

    // Later the same person writes with their number showing: still one contact, now with the number.
    await arrive([{ phoneNumberId: t.phoneNumberId, from: "254722999111", userId, name: "Mama Mboga", text: "Nitakuja kesho." }]);
    contacts = await rawQuery(`select id, phone, wa_id, user_id from contacts where organization_id = $1`, [t.organizationId]);
    expect(contacts).toEqual([{ id: first, phone: "+254722999111", wa_id: "254722999111", user_id: userId }]);
    const messages = await rawQuery<{ contact_id: string }>(`select contact_id from messages where organization_id = $1`, [
      t.organizationId,
    ]);
    expect(messages.map((m) => m.contact_id)).toEqual([first, first]);
  });

  it("takes a message naming a number and a user id that two contacts hold without failing the batch", async () => {
    const t = await tenant("Machakos Fruit Sellers");
    const userId = "KE.7799900011";
    // Known twice: once by number (before Meta sent user ids), once by user id alone.
    await arrive([
      { phoneNumberId: t.phoneNumberId, from: "254711222333", name: "Mutua", text: "Maembe yako tayari?" },
      { phoneNumberId: t.phoneNumberId, userId, username: "mutua_k", name: "Mutua", text: "Ni mimi tena." },
    ]);
    await arrive([{ phoneNumberId: t.phoneNumberId, from: "254711222333", userId, name: "Mutua", text: "Nitalipa kesho." }]);
    const contacts = await rawQuery<{ wa_id: string | null; user_id: string | null }>(
      `select wa_id, user_id from contacts where organization_id = $1 order by wa_id nulls last`,
      [t.organizationId],
    );
    expect(contacts).toEqual([
      { wa_id: "254711222333", user_id: null },
      { wa_id: null, user_id: userId },
    ]);
    const [latest] = await rawQuery<{ wa_id: string | null }>(
      `select c.wa_id from messages m join contacts c on c.id = m.contact_id where m.body = 'Nitalipa kesho.'`,
    );
    expect(latest!.wa_id).toBe("254711222333");
  });

  it("keeps each tenant's customers apart, even the same person writing to both", async () => {
    const a = await tenant("Nyeri Coffee Growers");
    const b = await tenant("Nyeri Water Company");
    await arrive([
      { phoneNumberId: a.phoneNumberId, from: "254733444555", name: "Wambui", text: "Kahawa bei gani?" },
      { phoneNumberId: b.phoneNumberId, from: "254733444555", name: "Wambui", text: "Bili yangu?" },
    ]);
    for (const t of [a, b]) {
      const rows = await rawQuery<{ body: string; contacts: number }>(
        `select m.body, (select count(*)::int from contacts where organization_id = $1) as contacts
         from messages m where m.organization_id = $1`,
        [t.organizationId],
      );
      expect(rows).toEqual([{ body: t === a ? "Kahawa bei gani?" : "Bili yangu?", contacts: 1 }]);
    }
  });
});
