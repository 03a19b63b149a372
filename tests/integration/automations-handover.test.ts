import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { users } from "~/.server/infrastructure/db/schema";
import { hashPassword } from "~/.server/domains/auth/password";
import { createRule } from "~/.server/domains/automations/rules";
import { handOver } from "~/.server/domains/automations/handover";
import { sendReply, setConversationState } from "~/.server/domains/inbox/actions";
import { findConversation } from "~/.server/domains/inbox/list";
import { conversationData } from "~/.server/domains/inbox/page";
import { queueMessage } from "~/.server/domains/messaging/queue";
import { analyticsPage } from "~/.server/domains/analytics/page";
import { signedInCookie, uniqueEmail } from "../support/accounts";
import { metaSandboxForFile } from "../support/meta-harness";
import { automationHarness, outbound, runs } from "../support/automation-harness";

// A hand-over (issue 44): the conversation goes to the least busy member who is around, the reason is
// in its thread and in a webhook, and no automation speaks while a person holds it, until it is resolved.

const meta = metaSandboxForFile();
const { tenant, customerWrites } = automationHarness(meta);

async function agent(organizationId: string, firstName: string, signedIn: boolean) {
  const email = uniqueEmail("agent");
  const [user] = await db()
    .insert(users)
    .values({
      organizationId,
      email,
      firstName,
      lastName: "Mwangi",
      orgRole: "agent",
      passwordHash: await hashPassword("Member#Pass12"),
      isVerified: true,
    })
    .returning();
  if (signedIn) await signedInCookie(email, "Member#Pass12");
  return user!.id;
}

const conversation = async (organizationId: string) =>
  (
    await rawQuery<{ id: string; assigned_to: string | null; held: boolean }>(
      `select id, assigned_to, person_held_at is not null as held from conversations where organization_id = $1`,
      [organizationId],
    )
  )[0]!;

describe("hand-over to a person", () => {
  it("assigns the least busy member around, says why in the thread and a webhook, and silences automations until resolved", async () => {
    const t = await tenant("Baraka Hardware Ltd");
    // A loopback address, refused at delivery without a connection: the test reads the queued event, no network.
    await rawQuery(`insert into webhook_endpoints (organization_id, url, events) values ($1, 'http://127.0.0.1:9/jumbe', $2)`, [
      t.organizationId,
      ["conversation.handover"],
    ]);
    const away = await agent(t.organizationId, "Otieno", false);
    const around = await agent(t.organizationId, "Wanjiru", true);
    await createRule(t.actor, { name: "Bei", matchType: "contains", keywords: ["bei"], reply: "Bei zetu ziko kwenye tovuti." });

    await customerWrites(t, "254712000301", "Habari, nataka kuongea na mtu");
    const { id } = await conversation(t.organizationId);
    const result = await db().transaction((tx) =>
      handOver(tx, { organizationId: t.organizationId, conversationId: id, reason: "asked_for_person", by: "assistant", detail: "mtu" }),
    );
    expect(result.assigneeId).toBe(around);
    expect(result.assigneeId).not.toBe(away);
    expect(await conversation(t.organizationId)).toMatchObject({ assigned_to: around, held: true });

    const [delivery] = await rawQuery<{ event_type: string; payload: { type: string; data: Record<string, unknown> } }>(
      `select event_type, payload from webhook_deliveries where organization_id = $1`,
      [t.organizationId],
    );
    expect(delivery!.event_type).toBe("conversation.handover");
    expect(delivery!.payload.data).toMatchObject({
      conversationId: id,
      reason: "asked_for_person",
      by: "assistant",
      assigneeId: around,
      from: "+254712000301",
    });

    const found = (await findConversation(t.organizationId, id))!;
    const thread = await conversationData(t.organizationId, found, null);
    const entry = thread.thread.items.find((i) => i.type === "entry" && i.kind === "handover");
    expect(entry).toMatchObject({ reason: "asked_for_person", body: "mtu", subject: { id: around } });

    // Held: the keyword rule stays silent.
    await customerWrites(t, "254712000301", "bei ya saruji?");
    expect((await outbound(t.organizationId)).filter((m) => m.source === "automation")).toEqual([]);
    expect(await runs(t.organizationId)).toEqual([]);

    // Resolved: automations answer again.
    await setConversationState({ organizationId: t.organizationId, userId: around }, found, "resolved");
    expect((await conversation(t.organizationId)).held).toBe(false);
    await customerWrites(t, "254712000301", "bei ya mabati?");
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual(["Bei zetu ziko kwenye tovuti."]);

    // A member answering in the inbox holds it again.
    await sendReply({ organizationId: t.organizationId, userId: around }, (await findConversation(t.organizationId, id))!, {
      text: "Karibu, nitakusaidia.",
    });
    expect((await conversation(t.organizationId)).held).toBe(true);
    await customerWrites(t, "254712000301", "bei ya misumari?");
    expect((await outbound(t.organizationId)).filter((m) => m.source === "automation")).toHaveLength(1);
  });

  it("a rule with reply buttons that hands over: the customer gets the buttons, the least busy member the conversation", async () => {
    const t = await tenant("Jamii Insurance Agency");
    const member = await agent(t.organizationId, "Akinyi", true);
    const rule = await createRule(t.actor, {
      name: "Claims",
      matchType: "contains",
      keywords: ["claim", "dai"],
      reply: "Pole sana. Tuko hapa kusaidia na dai lako.",
      buttons: ["Gari", "Afya"],
      assignTo: "least_busy",
    });
    expect(rule.actions).toEqual([
      { type: "reply", text: "Pole sana. Tuko hapa kusaidia na dai lako.", buttons: ["Gari", "Afya"] },
      { type: "handover" },
    ]);
    await customerWrites(t, "254712000303", "Nataka kufungua claim");
    const [reply] = await rawQuery<{
      message_type: string;
      payload: { interactive: { action: { buttons: { reply: { id: string; title: string } }[] } } };
    }>(`select message_type, payload from messages where organization_id = $1 and direction = 'outbound'`, [t.organizationId]);
    expect(reply!.message_type).toBe("interactive");
    expect(reply!.payload.interactive.action.buttons.map((b) => b.reply)).toEqual([
      { id: `rule:${rule.id}:1`, title: "Gari" },
      { id: `rule:${rule.id}:2`, title: "Afya" },
    ]);
    expect(await conversation(t.organizationId)).toMatchObject({ assigned_to: member, held: true });
    const [entry] = await rawQuery<{ kind: string; body: string; subject_id: string }>(
      `select kind, body, subject_id from conversation_entries where organization_id = $1`,
      [t.organizationId],
    );
    expect(entry).toEqual({ kind: "handover", body: "rule\nClaims", subject_id: member });
    // The person holds it now: the same words get no second answer.
    await customerWrites(t, "254712000303", "claim yangu?");
    expect(await outbound(t.organizationId)).toHaveLength(1);
  });

  it("counts on Analytics the conversations automations answered alone, those handed over and those people resolved", async () => {
    const t = await tenant("Mwangaza Solar Kenya");
    const member = await agent(t.organizationId, "Kamau", true);
    await createRule(t.actor, { name: "Bei", matchType: "contains", keywords: ["bei"], reply: "Paneli zinaanzia KES 15,000." });
    await createRule(t.actor, { name: "Shida", matchType: "contains", keywords: ["shida"], reply: "Pole!", assignTo: "least_busy" });
    await customerWrites(t, "254712000311", "bei ya paneli?");
    await customerWrites(t, "254712000312", "nina shida na betri");
    const [held] = await rawQuery<{ id: string }>(
      `select id from conversations where organization_id = $1 and person_held_at is not null`,
      [t.organizationId],
    );
    await setConversationState(
      { organizationId: t.organizationId, userId: member },
      (await findConversation(t.organizationId, held!.id))!,
      "resolved",
    );

    const page = await analyticsPage(t.organizationId, new URLSearchParams("period=7d"));
    expect(page.automations).toEqual({ byAutomation: 1, handedOver: 1, resolvedByPeople: 1 });
    const other = await tenant("Other Solar Ltd");
    expect((await analyticsPage(other.organizationId, new URLSearchParams("period=7d"))).automations).toEqual({
      byAutomation: 0,
      handedOver: 0,
      resolvedByPeople: 0,
    });
  });

  it("queues an automation's follow-up messages in order, in the first one's transaction", async () => {
    const t = await tenant("Tumaini Pharmacy");
    await customerWrites(t, "254712000302", "Hello");
    let seen: string[] = [];
    const first = await queueMessage(t.organizationId, {
      to: "+254712000302",
      from: t.phoneNumberId,
      content: { kind: "text", text: "Karibu Tumaini Pharmacy." },
      followUps: [
        { kind: "text", text: "Unatafuta dawa gani?" },
        { kind: "interactive", interactive: { type: "button", body: "Chagua:", buttons: [{ id: "otc", title: "Bila cheti" }] } },
      ],
      source: "automation",
      onQueued: async (_tx, message, followUps) => {
        seen = [message.id, ...followUps.map((f) => f.id)];
      },
    });
    const sent = await outbound(t.organizationId);
    expect(sent.map((m) => m.body)).toEqual(["Karibu Tumaini Pharmacy.", "Unatafuta dawa gani?", "Chagua:"]);
    expect(seen).toEqual(sent.map((m) => m.id));
    expect(seen[0]).toBe(first.id);
  });
});
