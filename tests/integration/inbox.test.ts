import { Refusal } from "~/.server/infrastructure/refusal";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { findConversation, listConversations, LIST_PAGE_SIZE } from "~/.server/domains/inbox/list";
import { threadOf } from "~/.server/domains/inbox/thread";
import { addNote, assignConversation, markConversationOpened, sendReply, setConversationState } from "~/.server/domains/inbox/actions";
import { openInboxStream } from "~/.server/domains/inbox/stream";
import { latestEventId } from "~/.server/domains/messaging/conversation-events";
import { db } from "~/.server/infrastructure/db/client";
import type { InboxLiveEvent, ThreadMessage } from "~/lib/inbox";
import { loader as chatLoader } from "~/routes/app/chat/index";
import { action as threadAction, loader as threadLoader } from "~/routes/app/chat/conversation";
import type { InboundInput } from "@jumbe/sandbox/meta/types";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { callRoute, formRequest, getRequest, refusalOf } from "../support/http";
import { startGraphSandbox } from "../support/sandbox-waba";
import { startReceiver } from "../support/whatsapp";

// The inbox on real conversations: customers write through the sandbox's signed webhooks and the
// real receiver and queue; agents answer through the sending engine; every change reaches the
// live stream's change log.

let graph: Awaited<ReturnType<typeof startGraphSandbox>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  registerJobHandlers();
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
  const connected = await graph.connect(user.organization.id, name);
  const actor = { userId: user.user.id, organizationId: user.organization.id };
  return { ...user, ...connected, actor, organizationId: user.organization.id };
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

const conversationOf = async (organizationId: string, phone: string, now?: Date) => {
  const [row] = await rawQuery<{ id: string }>(
    `select v.id from conversations v join contacts c on c.id = v.contact_id where v.organization_id = $1 and c.phone = $2`,
    [organizationId, phone],
  );
  return (await findConversation(organizationId, row!.id, now))!;
};

describe("the conversation list", () => {
  it("lists one conversation per customer, newest activity first, with unread counts, the window, search and filters", async () => {
    const t = await tenant("Mama Mboga Groceries");
    await arrive([
      { phoneNumberId: t.phoneNumberId, from: "254711000001", name: "Wanjiku Kamau", type: "text", text: "Habari, mna sukuma wiki leo?" },
    ]);
    await arrive([
      { phoneNumberId: t.phoneNumberId, from: "254711000002", name: "Otieno Ochieng", type: "text", text: "Delivery to Kilimani please" },
    ]);
    await arrive([
      { phoneNumberId: t.phoneNumberId, from: "254711000001", name: "Wanjiku Kamau", type: "text", text: "Na nyanya pia" },
      {
        phoneNumberId: t.phoneNumberId,
        from: "254711000001",
        name: "Wanjiku Kamau",
        type: "reaction",
        messageId: "wamid.unknown",
        emoji: "👍",
      },
    ]);
    const page = await listConversations(t.organizationId, { viewerId: t.user.id });
    expect(page.rows.map((r) => r.name)).toEqual(["Wanjiku Kamau", "Otieno Ochieng"]);
    expect(page.rows[0]).toMatchObject({ unread: 2, status: "open", phone: "+254711000001", lastMessage: { text: "Na nyanya pia" } });
    expect(page.rows[0]!.window.open).toBe(true);

    const search = async (q: string) => (await listConversations(t.organizationId, { viewerId: t.user.id, q })).rows.map((r) => r.name);
    expect(await search("otieno")).toEqual(["Otieno Ochieng"]);
    expect(await search("0711000002")).toEqual([]); // a local number is not how it is stored…
    expect(await search("711000002")).toEqual(["Otieno Ochieng"]); // …its digits are
    expect(await search("kilimani")).toEqual(["Otieno Ochieng"]); // the message text
    expect(await search("NYANYA")).toEqual(["Wanjiku Kamau"]);
    expect(await search("50%_")).toEqual([]); // wildcards are literal

    const wanjiku = page.rows[0]!;
    await assignConversation(t.actor, wanjiku, t.user.id);
    await setConversationState(t.actor, (await findConversation(t.organizationId, page.rows[1]!.id))!, "resolved");
    const filtered = async (filter: "open" | "resolved" | "mine" | "unassigned") =>
      (await listConversations(t.organizationId, { viewerId: t.user.id, filter })).rows.map((r) => r.name);
    expect(await filtered("mine")).toEqual(["Wanjiku Kamau"]);
    expect(await filtered("resolved")).toEqual(["Otieno Ochieng"]);
    expect(await filtered("open")).toEqual(["Wanjiku Kamau"]);
    expect(await filtered("unassigned")).toEqual([]);
    expect((await listConversations(t.organizationId, { viewerId: t.user.id, number: "999" })).rows).toEqual([]);
  });

  it("pages with a keyset cursor, and a bad cursor is the first page", async () => {
    const t = await tenant("Nyeri Dairy Co-op");
    for (let i = 0; i < LIST_PAGE_SIZE + 2; i++)
      await rawQuery(
        `with c as (insert into contacts (organization_id, name, phone, wa_id) values ($1, $2, $3, $4) returning id)
         insert into conversations (organization_id, phone_number_id, contact_id, last_message_at) select $1, $5, id, now() - make_interval(mins => $6) from c`,
        [
          t.organizationId,
          `Customer ${i}`,
          `+2547200000${String(i).padStart(2, "0")}`,
          `2547200000${String(i).padStart(2, "0")}`,
          t.phoneNumberId,
          i,
        ],
      );
    const first = await listConversations(t.organizationId, { viewerId: t.user.id });
    expect(first.rows).toHaveLength(LIST_PAGE_SIZE);
    expect(first.next).toBeTruthy();
    const second = await listConversations(t.organizationId, { viewerId: t.user.id, cursor: first.next });
    expect(second.rows.map((r) => r.name)).toEqual([`Customer ${LIST_PAGE_SIZE}`, `Customer ${LIST_PAGE_SIZE + 1}`]);
    expect(second.next).toBeNull();
    expect((await listConversations(t.organizationId, { viewerId: t.user.id, cursor: "not-a-cursor" })).rows).toHaveLength(LIST_PAGE_SIZE);
  });
});

describe("the service window", () => {
  it("is open for 24 hours after the customer's last message (controlled clock); a closed one takes only a template", async () => {
    const t = await tenant("Thika Hardware");
    await arrive([{ phoneNumberId: t.phoneNumberId, from: "254722000111", name: "Mwangi Njoroge", type: "text", text: "Bei ya cement?" }]);
    const now = await conversationOf(t.organizationId, "+254722000111");
    const closesAt = Date.parse(now.window.closesAt!);
    const lastInbound = Date.parse(now.lastInboundAt!);
    expect(closesAt - lastInbound).toBe(24 * 3600 * 1000);
    expect((await conversationOf(t.organizationId, "+254722000111", new Date(closesAt - 1000))).window.open).toBe(true);
    const later = await conversationOf(t.organizationId, "+254722000111", new Date(closesAt + 1000));
    expect(later.window.open).toBe(false);
    const before = await rawQuery(`select 1 from messages where organization_id = $1 and direction = 'outbound'`, [t.organizationId]);
    await expect(sendReply(t.actor, later, { text: "Ni 850 kwa bag" })).rejects.toThrow(/only a template/);
    await expect(sendReply(t.actor, now, { text: "   " })).rejects.toBeInstanceOf(Refusal);
    await expect(sendReply(t.actor, now, { text: "x".repeat(4097) })).rejects.toThrow(/at most 4,096/);
    expect(await rawQuery(`select 1 from messages where organization_id = $1 and direction = 'outbound'`, [t.organizationId])).toHaveLength(
      before.length,
    );
  });
});

describe("answering", () => {
  it("sends a reply through the engine, with its ticks moving in the thread and the change log", async () => {
    const t = await tenant("Kisumu Fish Traders");
    const [asked] = await arrive([
      { phoneNumberId: t.phoneNumberId, from: "254733000222", name: "Achieng Atieno", type: "text", text: "Tilapia iko?" },
    ]);
    const conversation = await conversationOf(t.organizationId, "+254733000222");
    const quoted = (await rawQuery<{ id: string }>(`select id from messages where wamid = $1`, [asked]))[0]!.id;
    const eventBefore = await latestEventId(db(), t.organizationId);
    const sent = await sendReply(t.actor, conversation, { text: "Iko, KES 450 kwa kilo", replyTo: quoted });
    await drainDispatcher();
    const stored = (
      await rawQuery<{ wamid: string; sent_by: string; source: string }>(`select wamid, sent_by, source from messages where id = $1`, [
        sent.id,
      ])
    )[0]!;
    expect(stored).toMatchObject({ sent_by: t.user.id, source: "inbox" });
    await graph.sandbox.sendStatus({
      phoneNumberId: t.phoneNumberId,
      wamid: stored.wamid,
      status: "delivered",
      recipientId: "254733000222",
    });
    await vi.waitFor(
      async () => {
        await drainJobs();
        const thread = await threadOf({ ...owner(conversation), organizationId: t.organizationId });
        const reply = thread.items.find((i) => i.id === sent.id) as ThreadMessage;
        expect(reply.status).toBe("delivered");
        expect(reply.sentBy?.id).toBe(t.user.id);
        expect(reply.replyTo?.text).toBe("Tilapia iko?");
      },
      { timeout: 30_000 },
    );
    const kinds = await rawQuery<{ kind: string }>(
      `select kind from inbox_events where organization_id = $1 and id > $2 and message_id = $3 order by id`,
      [t.organizationId, eventBefore, sent.id],
    );
    expect(kinds.map((k) => k.kind)).toEqual(expect.arrayContaining(["message", "status"]));
  });

  it("notes, assignment and resolving show in the thread; a new customer message reopens with a line", async () => {
    const t = await tenant("Eldoret Agrovet");
    await arrive([
      { phoneNumberId: t.phoneNumberId, from: "254744000333", name: "Kiprop Cheruiyot", type: "text", text: "Mbolea ya DAP?" },
    ]);
    let conversation = await conversationOf(t.organizationId, "+254744000333");
    await addNote(t.actor, conversation, "Regular customer, give the co-op price");
    await expect(addNote(t.actor, conversation, "  ")).rejects.toThrow(/Write the note/);
    await assignConversation(t.actor, conversation, t.user.id);
    await setConversationState(t.actor, conversation, "resolved");
    conversation = (await findConversation(t.organizationId, conversation.id))!;
    expect(conversation).toMatchObject({ status: "resolved", assignee: { id: t.user.id } });
    await arrive([{ phoneNumberId: t.phoneNumberId, from: "254744000333", name: "Kiprop Cheruiyot", type: "text", text: "Asante" }]);
    conversation = (await findConversation(t.organizationId, conversation.id))!;
    expect(conversation.status).toBe("open");
    const thread = await threadOf(owner(conversation, t.organizationId));
    const entries = thread.items.filter((i) => i.type === "entry").map((i) => (i.type === "entry" ? [i.kind, i.actor?.id ?? null] : []));
    expect(entries).toEqual([
      ["note", t.user.id],
      ["assigned", t.user.id],
      ["resolved", t.user.id],
      ["reopened", null],
    ]);
    // Nobody outside the organisation can be assigned.
    const other = await createVerifiedUser({ businessName: "Someone Else" });
    await expect(assignConversation(t.actor, conversation, other.user.id)).rejects.toThrow(/member of your organisation/);
  });

  it("opening a conversation zeroes its unread count and marks the customer's messages read at Meta", async () => {
    const t = await tenant("Mombasa Spices");
    await arrive([
      { phoneNumberId: t.phoneNumberId, from: "254755000444", name: "Fatuma Hassan", type: "text", text: "Pilau masala?" },
      { phoneNumberId: t.phoneNumberId, from: "254755000444", name: "Fatuma Hassan", type: "text", text: "Na binzari" },
    ]);
    const conversation = await conversationOf(t.organizationId, "+254755000444");
    expect(conversation.unread).toBe(2);
    await markConversationOpened(t.organizationId, conversation);
    expect((await findConversation(t.organizationId, conversation.id))!.unread).toBe(0);
    await drainJobs();
    const unread = await rawQuery(`select 1 from messages where organization_id = $1 and direction = 'inbound' and read_at is null`, [
      t.organizationId,
    ]);
    expect(unread).toHaveLength(0);
  });
});

describe("the thread", () => {
  it("shows every inbound kind, reactions on their message, and pages back with load older", async () => {
    const t = await tenant("Nakuru Electronics");
    const base = { phoneNumberId: t.phoneNumberId, from: "254766000555", name: "Njeri Wambui" };
    const [first] = await arrive([{ ...base, type: "text", text: "Hi" }]);
    await arrive([
      { ...base, type: "image", caption: "Hii TV" },
      { ...base, type: "audio", voice: true },
      { ...base, type: "video" },
      { ...base, type: "document", filename: "receipt.pdf" },
      { ...base, type: "sticker" },
      { ...base, type: "location", latitude: -0.3031, longitude: 36.08, locationName: "Westside Mall", address: "Kenyatta Ave" },
      { ...base, type: "contacts", contactName: "Kamau Wa Njeri", contactPhone: "+254711222333" },
      { ...base, type: "reaction", messageId: first!, emoji: "❤️" },
    ] as InboundInput[]);
    const conversation = await conversationOf(t.organizationId, "+254766000555");
    const thread = await threadOf(owner(conversation, t.organizationId));
    const messages = thread.items.filter((i): i is ThreadMessage => i.type === "message");
    expect(messages.map((m) => (m.content.kind === "media" ? m.content.media : m.content.kind))).toEqual([
      "text",
      "image",
      "audio",
      "video",
      "document",
      "sticker",
      "location",
      "contacts",
    ]);
    expect(messages[0]!.reactions).toEqual([{ emoji: "❤️", from: "customer" }]);
    expect(thread.older).toBeNull();

    for (let i = 0; i < 30; i++)
      await rawQuery(
        `insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, message_type, created_at)
         values ($1, $2, 'inbound', 'received', $3, $4, 'text', now() + make_interval(secs => $5))`,
        [t.organizationId, conversation.contactId, `Later ${i}`, t.phoneNumberId, i + 1],
      );
    const latest = await threadOf(owner(conversation, t.organizationId));
    expect(latest.items.filter((i) => i.type === "message")).toHaveLength(30);
    expect(latest.older).toBeTruthy();
    const older = await threadOf(owner(conversation, t.organizationId), latest.older);
    expect(older.items.filter((i) => i.type === "message")).toHaveLength(8);
  });
});

describe("the live stream", () => {
  it("sends each change once, and a reconnecting browser catches up from its last event id", async () => {
    const t = await tenant("Machakos Matatu Sacco");
    await arrive([{ phoneNumberId: t.phoneNumberId, from: "254777000666", name: "Musyoka Mutua", type: "text", text: "Booking ya kesho" }]);
    const conversation = await conversationOf(t.organizationId, "+254777000666");
    const start = await latestEventId(db(), t.organizationId);
    const received: { event: string; data: string; id?: string }[] = [];
    const stream = await openInboxStream({
      organizationId: t.organizationId,
      userId: t.user.id,
      conversationId: conversation.id,
      after: start,
    });
    const stop = stream.start((event) => void received.push(event));
    try {
      await arrive([{ phoneNumberId: t.phoneNumberId, from: "254777000666", name: "Musyoka Mutua", type: "text", text: "Saa ngapi?" }]);
      await vi.waitFor(
        () => {
          const inbox = received.filter((e) => e.event === "inbox").map((e) => JSON.parse(e.data) as InboxLiveEvent);
          const item = inbox.find((e) => e.kind === "message")?.item as ThreadMessage | undefined;
          expect(inbox.map((e) => e.kind)).toEqual(["message"]);
          expect(item?.content).toEqual({ kind: "text", text: "Saa ngapi?" });
          expect(inbox[0]!.conversation?.unread).toBe(2);
        },
        { timeout: 30_000 },
      );
    } finally {
      stop();
    }
    const firstId = Number(received.find((e) => e.event === "inbox")!.id);
    // Away: two more changes happen.
    await addNote(t.actor, conversation, "Confirm the seat number");
    await arrive([{ phoneNumberId: t.phoneNumberId, from: "254777000666", name: "Musyoka Mutua", type: "text", text: "Asante sana" }]);
    const caught: { event: string; data: string; id?: string }[] = [];
    const again = await openInboxStream({
      organizationId: t.organizationId,
      userId: t.user.id,
      conversationId: conversation.id,
      after: firstId,
    });
    const stop2 = again.start((event) => void caught.push(event));
    try {
      await vi.waitFor(
        () => {
          const items = caught.filter((e) => e.event === "inbox").map((e) => (JSON.parse(e.data) as InboxLiveEvent).item);
          expect(items.some((i) => i?.type === "entry" && i.body === "Confirm the seat number")).toBe(true);
          expect(items.some((i) => i?.type === "message" && i.content.kind === "text" && i.content.text === "Asante sana")).toBe(true);
        },
        { timeout: 30_000 },
      );
      const ids = caught.filter((e) => e.event === "inbox").map((e) => JSON.parse(e.data).id as number);
      expect(new Set(ids).size).toBe(ids.length);
      expect(Math.min(...ids)).toBeGreaterThan(firstId);
    } finally {
      stop2();
    }
  });
});

describe("tenant separation", () => {
  it("answers 404 for another organisation's conversation, in the page, its actions and the stream", async () => {
    const a = await tenant("Kericho Tea Estate");
    const b = await tenant("Nanyuki Safari Lodge");
    await arrive([
      { phoneNumberId: a.phoneNumberId, from: "254788000777", name: "Chebet Langat", type: "text", text: "Chai ya kilo moja" },
    ]);
    const theirs = await conversationOf(a.organizationId, "+254788000777");
    expect(await findConversation(b.organizationId, theirs.id)).toBeNull();
    expect((await listConversations(b.organizationId, { viewerId: b.user.id })).rows).toEqual([]);
    const cookie = await signedInCookie(b.email, b.password);
    const page = await call(threadLoader, getRequest(`/chat/${theirs.id}`, { cookie }), { id: theirs.id });
    expect(page.status).toBe(404);
    const post = await call(threadAction, formRequest(`/chat/${theirs.id}`, { intent: "note", note: "hi" }, { cookie }), { id: theirs.id });
    expect(post.status).toBe(404);
    expect(await rawQuery(`select 1 from conversation_entries where conversation_id = $1`, [theirs.id])).toHaveLength(0);
    const malformed = await call(threadLoader, getRequest(`/chat/not-an-id`, { cookie }), { id: "not-an-id" });
    expect(malformed.status).toBe(404);
  });
});

describe("the pages", () => {
  it("render the list and the thread, and a posted reply (no JavaScript) is queued and comes back to the thread", async () => {
    const t = await tenant("Nairobi Bike Couriers");
    await arrive([
      { phoneNumberId: t.phoneNumberId, from: "254799000888", name: "Juma Said", type: "text", text: "Pick up at Yaya Centre" },
    ]);
    const conversation = await conversationOf(t.organizationId, "+254799000888");
    const cookie = await signedInCookie(t.email, t.password);
    const list = await call(chatLoader, getRequest("/chat?filter=open", { cookie }));
    expect(list.data.rows.map((r: { name: string }) => r.name)).toEqual(["Juma Said"]);
    const page = await call(threadLoader, getRequest(`/chat/${conversation.id}?filter=open`, { cookie }), { id: conversation.id });
    expect(page.data.conversation.name).toBe("Juma Said");
    expect(page.data.conversation.unread).toBe(0);

    const blank = await call(threadAction, formRequest(`/chat/${conversation.id}`, { intent: "send", body: "  " }, { cookie }), {
      id: conversation.id,
    });
    expect(blank.status).toBe(400);
    expect(refusalOf(blank).errors.body).toBe("Write a message before sending.");
    const sent = await call(
      threadAction,
      formRequest(`/chat/${conversation.id}?filter=open`, { intent: "send", body: "On my way, dakika kumi" }, { cookie }),
      { id: conversation.id },
    );
    expect(sent.status).toBe(302);
    expect(sent.location).toBe(`/chat/${conversation.id}?filter=open`);
    const [stored] = await rawQuery<{ body: string; status: string }>(
      `select body, status from messages where organization_id = $1 and direction = 'outbound'`,
      [t.organizationId],
    );
    expect(stored).toEqual({ body: "On my way, dakika kumi", status: "queued" });
    const unknown = await call(threadAction, formRequest(`/chat/${conversation.id}`, { intent: "explode" }, { cookie }), {
      id: conversation.id,
    });
    expect(unknown.status).toBe(400);
  });
});

describe("attachments", () => {
  it("sends an image posted with the reply form; a file WhatsApp would refuse is refused at the attachment and nothing is kept", async () => {
    const t = await tenant("Kitengela Printers");
    await arrive([{ phoneNumberId: t.phoneNumberId, from: "254700999111", name: "Nafula Wekesa", type: "text", text: "Tuma design" }]);
    const conversation = await conversationOf(t.organizationId, "+254700999111");
    const cookie = await signedInCookie(t.email, t.password);
    const post = (file: { bytes: Buffer; type: string; name: string }, body = "Hii hapa") => {
      const form = new FormData();
      form.set("intent", "send");
      form.set("body", body);
      form.set("attachment", new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
      return call(
        threadAction,
        new Request(`http://jumbe.test/chat/${conversation.id}`, {
          method: "POST",
          body: form,
          headers: { cookie, origin: "http://jumbe.test" },
        }),
        {
          id: conversation.id,
        },
      );
    };
    const png = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(300, 7)]);
    const files = async () =>
      Number(
        (await rawQuery<{ n: number }>(`select count(*)::int as n from media_files where organization_id = $1`, [t.organizationId]))[0]!.n,
      );

    const refused = await post({ bytes: Buffer.from("MZ this is a program"), type: "image/png", name: "design.png" });
    expect(refused.status).toBe(415);
    expect(refusalOf(refused).errors.attachment).toMatch(/./);
    expect(refusalOf(refused).values.body).toBe("Hii hapa");
    const audioWithCaption = await post({
      bytes: Buffer.concat([Buffer.from("OggS"), Buffer.alloc(300, 1)]),
      type: "audio/ogg",
      name: "note.ogg",
    });
    expect(audioWithCaption.status).toBe(400);
    expect(refusalOf(audioWithCaption).errors.body).toMatch(/without a caption/);
    expect(await files()).toBe(0);
    expect(await rawQuery(`select 1 from messages where organization_id = $1 and direction = 'outbound'`, [t.organizationId])).toHaveLength(
      0,
    );

    const sent = await post({ bytes: png, type: "image/png", name: "design.png" });
    expect(sent.status).toBe(302);
    const [message] = await rawQuery<{ message_type: string; payload: { image: { id: string; caption: string } } }>(
      `select message_type, payload from messages where organization_id = $1 and direction = 'outbound'`,
      [t.organizationId],
    );
    expect(message!.message_type).toBe("image");
    expect(message!.payload.image.caption).toBe("Hii hapa");
    expect(message!.payload.image.id).toMatch(/^jumbe-media:/);
    expect(await files()).toBe(1);
  });
});

function owner(conversation: { id: string; contactId: string; phoneNumberId: string }, organizationId?: string) {
  return {
    organizationId: organizationId ?? "",
    conversationId: conversation.id,
    contactId: conversation.contactId,
    phoneNumberId: conversation.phoneNumberId,
  };
}

const call = callRoute;
