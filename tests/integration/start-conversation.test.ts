import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { saveContact } from "~/.server/domains/contacts/manage";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { action as startAction, loader as startLoader } from "~/routes/app/chat/new";
import { action as threadAction, loader as threadLoader } from "~/routes/app/chat/conversation";
import { loader as listLoader } from "~/routes/app/chat/index";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { callRoute, formRequest, getRequest, refusalOf } from "../support/http";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedMediaTemplate, metaReceived, recipient } from "../support/sending-kit";

// Writing to one customer first (issue 39): /chat/new finds or makes the contact and the
// conversation, once however often it is posted; the closed window's picker sends templates with a
// media header and buttons that take a value.

const meta = metaSandboxForFile();

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  const connected = await meta.graph.connect(user.organization.id, name);
  const cookie = await signedInCookie(user.email, user.password);
  return { ...user, ...connected, organizationId: user.organization.id, userId: user.user.id, cookie };
}

const call = callRoute;

const count = async (table: "contacts" | "conversations", organizationId: string) =>
  Number((await rawQuery<{ n: number }>(`select count(*)::int as n from ${table} where organization_id = $1`, [organizationId]))[0]!.n);

/** What the page's refusal carries: each field's words and what was posted. */
interface StartRefusal {
  errors: Partial<Record<"contact" | "phone" | "number" | "form", string>>;
  values: { contactId: string; phone: string; number: string };
}

const start = async (cookie: string, fields: Record<string, string>) => {
  const answer = await call(startAction, formRequest("/chat/new", fields, { cookie }));
  return answer as Omit<typeof answer, "data"> & { data: StartRefusal };
};

describe("starting a conversation", () => {
  it("with a contact: one conversation however often it is posted, shown in the list and thread with no message yet", async () => {
    const t = await tenant("Mama Mboga Deliveries");
    const { contact } = await saveContact(t, { name: "Wanjiku Kamau", phone: recipient(1) });
    const first = await start(t.cookie, { contactId: contact.id });
    expect(first.status).toBe(302);
    const id = first.location!.replace("/chat/", "");
    const again = await start(t.cookie, { contactId: contact.id });
    expect(again.location).toBe(`/chat/${id}`);
    expect(await count("conversations", t.organizationId)).toBe(1);
    expect(await count("contacts", t.organizationId)).toBe(1);

    // The thread opens with the window closed, offering the template picker.
    const page = await call(threadLoader, getRequest(`/chat/${id}`, { cookie: t.cookie }), { id });
    expect(page.status).toBe(200);
    expect(page.data.conversation.window.open).toBe(false);
    expect(page.data.conversation.lastMessage).toBeNull();
    expect(page.data.thread.items).toEqual([]);
    // The list is not in the thread's page (a phone shows one or the other): /chat answers it.
    expect(page.data).not.toHaveProperty("rows");
    const list = await call(listLoader, getRequest("/chat", { cookie: t.cookie }));
    expect(list.data.rows.map((r: { id: string }) => r.id)).toContain(id);

    // The contact's Message link goes straight to it now (one number); GET never creates.
    const link = await call(startLoader, getRequest(`/chat/new?contact=${contact.id}`, { cookie: t.cookie }));
    expect(link.status).toBe(302);
    expect(link.location).toBe(`/chat/${id}`);
  });

  it("with a typed number: a new contact named by the number, once, even posted twice", async () => {
    const t = await tenant("Kibanda Hardware");
    const results = await Promise.all([start(t.cookie, { phone: "0711 000 018" }), start(t.cookie, { phone: "+254711000018" })]);
    expect(results.map((r) => r.status)).toEqual([302, 302]);
    expect(results[0]!.location).toBe(results[1]!.location);
    const contacts = await rawQuery<{ name: string; phone: string }>(`select name, phone from contacts where organization_id = $1`, [
      t.organizationId,
    ]);
    expect(contacts).toEqual([{ name: "+254711000018", phone: "+254711000018" }]);
    expect(await count("conversations", t.organizationId)).toBe(1);
  });

  it("refuses a bad number at its field, keeping it, and creates nothing", async () => {
    const t = await tenant("Duka la Mtaa");
    const bad = await start(t.cookie, { phone: "12ab" });
    expect(bad.status).toBe(422);
    expect(bad.data.errors.phone).toMatch(/./);
    expect(bad.data.values.phone).toBe("12ab");
    const none = await start(t.cookie, { phone: "  " });
    expect(none.status).toBe(422);
    expect(none.data.errors.phone).toBe("Choose a contact or type a phone number.");
    expect(await count("contacts", t.organizationId)).toBe(0);
    expect(await count("conversations", t.organizationId)).toBe(0);
  });

  it("refuses an opted-out contact, creating nothing", async () => {
    const t = await tenant("Nyama Choma Palace");
    const { contact } = await saveContact(
      t,
      { name: "Otieno Odhiambo", phone: recipient(2) },
      { consent: { status: "opted_out", source: "manual" } },
    );
    const refused = await start(t.cookie, { contactId: contact.id });
    expect(refused.status).toBe(409);
    expect(refused.data.errors.form).toBe("Otieno Odhiambo opted out of your messages, so Jumbe does not write to them.");
    const typed = await start(t.cookie, { phone: recipient(2) });
    expect(typed.status).toBe(409);
    expect(await count("conversations", t.organizationId)).toBe(0);
    expect(await count("contacts", t.organizationId)).toBe(1);
  });

  it("answers 404 for another organisation's contact, on the page and the post", async () => {
    const t = await tenant("Shamba Fresh");
    const other = await createVerifiedUser({ businessName: "Jirani Limited" });
    const { contact } = await saveContact({ organizationId: other.organization.id }, { name: "Akinyi", phone: recipient(3) });
    expect((await start(t.cookie, { contactId: contact.id })).status).toBe(404);
    expect((await call(startLoader, getRequest(`/chat/new?contact=${contact.id}`, { cookie: t.cookie }))).status).toBe(404);
    expect((await start(t.cookie, { contactId: "not-an-id" })).status).toBe(404);
    expect(await rawQuery(`select 1 from conversations where contact_id = $1`, [contact.id])).toHaveLength(0);
  });

  it("lists matching contacts for the search box, bounded, and asks for a number to connect when there is none", async () => {
    const t = await tenant("Chai Point");
    await saveContact(t, { name: "Halima Yusuf", phone: recipient(4) });
    await saveContact(t, { name: "Hassan Ali", phone: recipient(5) });
    const page = await call(startLoader, getRequest("/chat/new?q=halima", { cookie: t.cookie }));
    expect(page.data.matches.map((m: { name: string }) => m.name)).toEqual(["Halima Yusuf"]);
    const byNumber = await call(startLoader, getRequest(`/chat/new?q=${recipient(5).slice(-6)}`, { cookie: t.cookie }));
    expect(byNumber.data.matches.map((m: { name: string }) => m.name)).toEqual(["Hassan Ali"]);

    const lone = await createVerifiedUser({ businessName: "Bila Namba" });
    const cookie = await signedInCookie(lone.email, lone.password);
    expect((await call(startLoader, getRequest("/chat/new", { cookie }))).data.numbers).toEqual([]);
    const refused = await start(cookie, { phone: recipient(6) });
    expect(refused.status).toBe(409);
    expect(refused.data.errors.form).toMatch(/Connect a WhatsApp number/);
    expect(await count("contacts", lone.organization.id)).toBe(0);
  });
});

describe("the closed window's templates", () => {
  async function freshConversation(name: string) {
    const t = await tenant(name);
    const { contact } = await saveContact(
      t,
      { name: "Mwangi Kariuki", phone: recipient(7) },
      { consent: { status: "opted_in", source: "manual" } },
    );
    const started = await start(t.cookie, { contactId: contact.id });
    return { ...t, conversationId: started.location!.replace("/chat/", "") };
  }
  const templateId = async (organizationId: string, name: string) =>
    (
      await rawQuery<{ id: string }>(`select id from message_templates where organization_id = $1 and name = $2`, [organizationId, name])
    )[0]!.id;
  const post = (t: { cookie: string; conversationId: string }, fields: Record<string, string>) =>
    call(threadAction, formRequest(`/chat/${t.conversationId}`, { intent: "template", ...fields }, { cookie: t.cookie }), {
      id: t.conversationId,
    });

  it("offers and sends a template with an image header (by link) and a dynamic link button; refuses a bad link at its field", async () => {
    const t = await freshConversation("Jua Kali Motors");
    await approvedMediaTemplate(meta.graph, t, "service_ready", {
      body: "Your car is ready, {{1}}.",
      buttons: [{ type: "URL", text: "Pay now", url: "https://pay.example.com/{{1}}", example: ["https://pay.example.com/INV1"] }],
    });
    const id = await templateId(t.organizationId, "service_ready");
    const page = await call(threadLoader, getRequest(`/chat/${t.conversationId}?template=${id}`, { cookie: t.cookie }), {
      id: t.conversationId,
    });
    expect(page.data.chosenTemplate).toMatchObject({
      name: "service_ready",
      headerMedia: "image",
      buttons: [{ index: 0, kind: "url", text: "Pay now" }],
    });

    const badLink = await post(t, { template: id, p1: "Mwangi", headerLink: "http://poster.example.com/car.jpg", b0: "INV-77" });
    expect(badLink.status).toBe(400);
    expect(refusalOf(badLink).errors.headerLink).toMatch(/https:\/\//);
    expect(refusalOf(badLink).values).toMatchObject({ p1: "Mwangi", b0: "INV-77" });
    const noFile = await post(t, { template: id, p1: "Mwangi", b0: "INV-77" });
    expect(refusalOf(noFile).errors.attachment).toMatch(/upload the file or give its https:\/\/ link/);
    const noButton = await post(t, { template: id, p1: "Mwangi", headerLink: "https://poster.example.com/car.jpg" });
    expect(refusalOf(noButton).errors.b0).toMatch(/Pay now/);
    expect(await rawQuery(`select 1 from messages where organization_id = $1`, [t.organizationId])).toHaveLength(0);

    const sent = await post(t, { template: id, p1: "Mwangi", headerLink: "https://poster.example.com/car.jpg", b0: "INV-77" });
    expect(sent.status).toBe(302);
    expect(sent.location).toBe(`/chat/${t.conversationId}`);
    const [message] = await rawQuery<{ payload: { template: Record<string, unknown> } }>(
      `select payload from messages where organization_id = $1 and direction = 'outbound'`,
      [t.organizationId],
    );
    expect(message!.payload.template).toMatchObject({
      name: "service_ready",
      components: [
        { type: "header", parameters: [{ type: "image", image: { link: "https://poster.example.com/car.jpg" } }] },
        { type: "body", parameters: [{ type: "text", text: "Mwangi" }] },
        { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "INV-77" }] },
      ],
    });
    // The sandbox takes it as Meta would.
    await drainDispatcher();
    const [atMeta] = await metaReceived(meta.graph, t.phoneNumberId);
    expect(JSON.stringify(atMeta)).toContain("INV-77");
    const thread = await call(threadLoader, getRequest(`/chat/${t.conversationId}`, { cookie: t.cookie }), { id: t.conversationId });
    expect(thread.data.thread.items).toHaveLength(1);
  });

  it("sends a copy code template with an uploaded image header; refuses a code over 15 characters", async () => {
    const t = await freshConversation("Gawio Sacco");
    await approvedMediaTemplate(meta.graph, t, "gawio_offer", {
      category: "MARKETING",
      body: "Habari {{1}}! Use your code for 10% off loan fees.",
      buttons: [{ type: "COPY_CODE", example: "GAWIO26" }],
    });
    const id = await templateId(t.organizationId, "gawio_offer");
    const png = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(300, 7)]);
    const upload = (code: string) => {
      const form = new FormData();
      form.set("intent", "template");
      form.set("template", id);
      form.set("p1", "Mwangi");
      form.set("b0", code);
      form.set("attachment", new File([png], "offer.png", { type: "image/png" }));
      return call(
        threadAction,
        new Request(`http://jumbe.test/chat/${t.conversationId}`, {
          method: "POST",
          body: form,
          headers: { cookie: t.cookie, origin: "http://jumbe.test" },
        }),
        { id: t.conversationId },
      );
    };
    const files = async () =>
      Number(
        (await rawQuery<{ n: number }>(`select count(*)::int as n from media_files where organization_id = $1`, [t.organizationId]))[0]!.n,
      );
    const long = await upload("X".repeat(16));
    expect(long.status).toBe(400);
    expect(refusalOf(long).errors.b0).toBe("A copy code has at most 15 characters.");
    expect(refusalOf(long).values.b0).toBe("X".repeat(16));
    expect(await files()).toBe(0);
    expect(await rawQuery(`select 1 from messages where organization_id = $1`, [t.organizationId])).toHaveLength(0);

    const sent = await upload("MWANGI10");
    expect(sent.status).toBe(302);
    const [message] = await rawQuery<{ payload: { template: { components: Record<string, unknown>[] } } }>(
      `select payload from messages where organization_id = $1 and direction = 'outbound'`,
      [t.organizationId],
    );
    const [header, , button] = message!.payload.template.components;
    expect(header).toMatchObject({ type: "header", parameters: [{ type: "image", image: { id: expect.any(String) } }] });
    expect(button).toEqual({
      type: "button",
      sub_type: "copy_code",
      index: "0",
      parameters: [{ type: "coupon_code", coupon_code: "MWANGI10" }],
    });
    await drainDispatcher();
    const [atMeta] = await metaReceived(meta.graph, t.phoneNumberId);
    expect(JSON.stringify(atMeta)).toContain("MWANGI10");
  });
});
