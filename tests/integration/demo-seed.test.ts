import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/db/client";
import { DEMO_ACCOUNTS, seedDemoData } from "~/.server/db/seed";
import { listQuickReplies } from "~/.server/inbox/quick-replies";
import { fileStorage } from "~/.server/storage";
import { env } from "~/.server/config/env";
import { stableNumericId } from "../../sandbox/meta/util";

// The demo tenant's inbox (issue 16): conversations as the webhooks, the sending engine and the
// agents would have left them, so /chat shows something real on a fresh start.

async function demoOrganization() {
  const [row] = await rawQuery<{ organization_id: string }>(`select organization_id from users where email = $1`, [
    DEMO_ACCOUNTS.find((a) => a.usertype === "individual")!.email,
  ]);
  return row!.organization_id;
}

async function countsOf(organizationId: string) {
  const [row] = await rawQuery<Record<string, number>>(
    `select (select count(*)::int from conversations where organization_id = $1) as conversations,
            (select count(*)::int from messages where organization_id = $1) as messages,
            (select count(*)::int from conversation_entries where organization_id = $1) as entries,
            (select count(*)::int from media_files where organization_id = $1) as files,
            (select count(*)::int from quick_replies where organization_id = $1) as replies,
            (select count(*)::int from contacts where organization_id = $1) as contacts`,
    [organizationId],
  );
  return row!;
}

describe("the demo inbox", () => {
  it("seeds about 25 conversations on the sandbox's demo number, consistent with their messages, once", async () => {
    expect(await seedDemoData()).toBe(true);
    const organizationId = await demoOrganization();
    const before = await countsOf(organizationId);
    expect(before.conversations).toBeGreaterThanOrEqual(20);
    expect(before.replies).toBe(8);

    const demoNumber = stableNumericId(`${env().META_APP_ID}:demo-phone`);
    const rows = await rawQuery<{
      id: string;
      phone_number_id: string;
      name: string;
      phone: string;
      unread_count: number;
      unread_inbound: number;
      last_inbound_at: Date | string | null;
      max_inbound: Date | string | null;
      last_message_at: Date | string;
      max_message: Date | string;
      status: string;
      resolved_at: Date | string | null;
      assignee_org: string | null;
      assigned_to: string | null;
    }>(
      `select c.id, c.phone_number_id, k.name, k.phone, c.unread_count, c.last_inbound_at, c.last_message_at, c.status, c.resolved_at,
              c.assigned_to, u.organization_id as assignee_org,
              (select count(*)::int from messages m where m.contact_id = c.contact_id and m.phone_number_id = c.phone_number_id
                 and m.direction = 'inbound' and m.read_at is null) as unread_inbound,
              (select max(m.sent_at) from messages m where m.contact_id = c.contact_id and m.phone_number_id = c.phone_number_id
                 and m.direction = 'inbound') as max_inbound,
              (select max(coalesce(m.sent_at, m.created_at)) from messages m where m.contact_id = c.contact_id
                 and m.phone_number_id = c.phone_number_id) as max_message
       from conversations c join contacts k on k.id = c.contact_id left join users u on u.id = c.assigned_to
       where c.organization_id = $1`,
      [organizationId],
    );
    const time = (value: Date | string | null) => (value === null ? null : new Date(value).getTime());
    for (const row of rows) {
      expect(row.phone_number_id, row.name).toBe(demoNumber);
      expect(row.phone, row.name).toMatch(/^\+2547\d{8}$/);
      expect(row.unread_count, `${row.name}: unread`).toBe(row.unread_inbound);
      expect(time(row.last_inbound_at), `${row.name}: last inbound`).toBe(time(row.max_inbound));
      expect(time(row.last_message_at), `${row.name}: last message`).toBe(time(row.max_message));
      expect(row.status === "resolved", `${row.name}: resolved_at`).toBe(row.resolved_at !== null);
      if (row.status === "resolved") expect(row.unread_count, `${row.name}: resolved with unread`).toBe(0);
      if (row.assigned_to) expect(row.assignee_org, `${row.name}: assignee`).toBe(organizationId);
    }
    const names = rows.map((r) => r.name);
    for (const name of ["Wanjiku Kamau", "Otieno Ochieng", "Achieng Atieno", "Mwangi Njoroge", "Fatuma Hassan", "Kiprop Cheruiyot"])
      expect(names).toContain(name);
    const now = Date.now();
    const open = rows.filter((r) => now - time(r.last_inbound_at)! < 24 * 3600_000);
    expect(open.length, "windows open").toBeGreaterThanOrEqual(8);
    expect(rows.length - open.length, "windows closed").toBeGreaterThanOrEqual(5);
    expect(rows.filter((r) => r.status === "resolved").length).toBeGreaterThanOrEqual(3);
    expect(rows.filter((r) => r.assigned_to).length).toBeGreaterThanOrEqual(8);
    expect(rows.filter((r) => r.unread_count > 0).length).toBeGreaterThanOrEqual(4);

    // A second start seeds nothing.
    expect(await seedDemoData()).toBe(false);
    expect(await countsOf(organizationId)).toEqual(before);
  });

  it("holds every kind of message in and out, as Meta and the sending engine shape them", async () => {
    await seedDemoData();
    const organizationId = await demoOrganization();
    const inbound = await rawQuery<{ message_type: string; wamid: string; status: string; payload: Record<string, unknown>; body: string }>(
      `select m.message_type, m.wamid, m.status, m.payload, m.body from messages m
       join conversations c on c.contact_id = m.contact_id and c.phone_number_id = m.phone_number_id
       where m.organization_id = $1 and m.direction = 'inbound'`,
      [organizationId],
    );
    expect(new Set(inbound.map((m) => m.message_type))).toEqual(
      new Set(["text", "image", "audio", "document", "location", "contacts", "interactive", "reaction"]),
    );
    for (const m of inbound) {
      expect(m.wamid).toMatch(/^wamid\.DEMO/);
      expect(m.status).toBe("received");
      expect(m.payload.id).toBe(m.wamid);
      expect(m.payload.type).toBe(m.message_type);
      expect(m.payload.timestamp).toMatch(/^\d+$/);
    }
    expect((inbound.find((m) => m.message_type === "audio")!.payload.audio as { voice: boolean }).voice).toBe(true);
    expect(inbound.find((m) => m.message_type === "location")!.body).toBe("Sarit Centre, Karuna Close, Westlands, Nairobi");
    expect(
      inbound.some((m) => /[Nn]iaje|boss|mathe/.test(m.body)),
      "Sheng",
    ).toBe(true);

    // Replies in context and reactions name messages of the same tenant by their wamid.
    const wamids = new Set(
      (
        await rawQuery<{ wamid: string }>(`select wamid from messages where organization_id = $1 and wamid is not null`, [organizationId])
      ).map((r) => r.wamid),
    );
    const quoted = inbound.filter((m) => m.payload.context).map((m) => (m.payload.context as { id: string }).id);
    expect(quoted.length).toBeGreaterThanOrEqual(3);
    for (const id of quoted) expect(wamids.has(id)).toBe(true);
    for (const m of inbound.filter((m) => m.message_type === "reaction"))
      expect(wamids.has((m.payload.reaction as { message_id: string }).message_id)).toBe(true);

    const outbound = await rawQuery<{
      status: string;
      source: string;
      sent_by: string | null;
      error_code: number | null;
      error_title: string | null;
      template_id: string | null;
      payload: Record<string, unknown> | null;
      campaign_id: string | null;
    }>(
      `select m.status, m.source, m.sent_by, m.error_code, m.error_title, m.template_id, m.payload, m.campaign_id from messages m
       join conversations c on c.contact_id = m.contact_id and c.phone_number_id = m.phone_number_id
       where m.organization_id = $1 and m.direction = 'outbound'`,
      [organizationId],
    );
    const agents = outbound.filter((m) => m.source === "inbox");
    expect(new Set(agents.map((m) => m.status))).toEqual(new Set(["sent", "delivered", "read", "failed"]));
    expect(agents.every((m) => m.sent_by)).toBe(true);
    expect(agents.filter((m) => m.status === "failed")).toMatchObject([{ error_code: 131047, error_title: "Re-engagement message" }]);
    const template = outbound.find((m) => m.source === "campaign")!;
    expect(template.template_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(template.campaign_id).not.toBeNull();
    expect((template.payload!.template as { name: string; components: unknown[] }).name).toBe("loan_repayment_reminder");
    expect((template.payload!.template as { components: unknown[] }).components).toHaveLength(3);

    const entries = await rawQuery<{ kind: string }>(`select distinct kind from conversation_entries where organization_id = $1`, [
      organizationId,
    ]);
    expect(new Set(entries.map((e) => e.kind))).toEqual(new Set(["note", "assigned", "unassigned", "resolved", "reopened"]));

    expect((await listQuickReplies(organizationId)).map((r) => r.shortcut)).toEqual([
      "delivery",
      "escalate",
      "habari",
      "hours",
      "location",
      "mpesa",
      "refund",
      "thanks",
    ]);
  });

  it("stores the customers' files as a download would have: real bytes in storage, linked from their messages", async () => {
    await seedDemoData();
    const organizationId = await demoOrganization();
    const files = await rawQuery<{
      message_type: string;
      mime_type: string;
      size: number;
      sha256: string;
      storage_key: string;
      payload_sha: string;
    }>(
      `select m.message_type, f.mime_type, f.size, f.sha256, f.storage_key, m.payload -> m.message_type ->> 'sha256' as payload_sha
       from messages m join media_files f on f.id = m.media_file_id
       where m.organization_id = $1 and f.organization_id = $1 and f.direction = 'inbound' order by m.message_type`,
      [organizationId],
    );
    expect(files.map((f) => [f.message_type, f.mime_type])).toEqual([
      ["audio", "audio/ogg"],
      ["document", "application/pdf"],
      ["image", "image/png"],
    ]);
    const magic: Record<string, string> = { "audio/ogg": "OggS", "application/pdf": "%PDF", "image/png": "\x89PNG" };
    for (const file of files) {
      const chunks: Buffer[] = [];
      for await (const chunk of await fileStorage().read(file.storage_key)) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      expect(bytes.length).toBe(file.size);
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(file.sha256);
      expect(Buffer.from(file.payload_sha, "base64").toString("hex")).toBe(file.sha256);
      expect(bytes.subarray(0, 4).toString("latin1")).toBe(magic[file.mime_type]);
    }
  });
});
