import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { fileStorage, StorageNotFoundError } from "~/.server/infrastructure/storage";
import { enforceAllRetention } from "~/.server/domains/housekeeping/retention";
import {
  createPartitionsAhead,
  dropExpiredPartitions,
  partitionsOf,
  PARTITION_MONTHS_AHEAD,
} from "~/.server/domains/housekeeping/partitions";
import { messageContent } from "~/.server/domains/inbox/message-content";
import { action as retentionAction, loader as retentionLoader } from "~/routes/app/settings/retention";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { callRoute, formRequest, getRequest, run } from "../support/http";

// Issue 78 (decisions 164 and 165): each organisation says how long its message bodies, media and
// logs are kept, within the platform's limits; the daily job removes what is past them, in bulk, and
// nothing of another tenant's or of the accounting records; the log tables are partitioned by month,
// made ahead and dropped whole past the platform's longest retention.

const policyOf = async (organizationId: string) =>
  (
    await rawQuery<{ message_retention_days: number; media_retention_days: number; log_retention_days: number }>(
      `select message_retention_days, media_retention_days, log_retention_days from organizations where id = $1`,
      [organizationId],
    )
  )[0];

const post = (cookie: string, fields: Record<string, string>) =>
  run(retentionAction, formRequest("/settings/retention", fields, { cookie }));

describe("Settings → Data retention", () => {
  it("shows the defaults, saves a change within the limits (logged) and refuses one outside them with its words (400, nothing changed)", async () => {
    const { organization, email, password } = await createVerifiedUser({ businessName: "Retention Settings Ltd" });
    const cookie = await signedInCookie(email, password);
    const page = await callRoute(retentionLoader, getRequest("/settings/retention", { cookie }));
    expect(page.data.policy).toEqual({ messageDays: 730, mediaDays: 90, logDays: 90 });

    const saved = await post(cookie, { messageDays: "365", mediaDays: "60", logDays: "45" });
    expect(saved.status).toBe(302);
    expect(await policyOf(organization.id)).toEqual({ message_retention_days: 365, media_retention_days: 60, log_retention_days: 45 });
    const logged = await rawQuery<{ action: string; details: string }>(
      `select action, details from activity_logs where organization_id = $1 and action = 'Data retention changed'`,
      [organization.id],
    );
    expect(logged).toEqual([{ action: "Data retention changed", details: "Message bodies: 365 days; media: 60 days; logs: 45 days" }]);

    const refusals: [Record<string, string>, string, string][] = [
      [{ messageDays: "10", mediaDays: "10", logDays: "45" }, "messageDays", "Enter a whole number of days from 30 to 2555."],
      [{ messageDays: "3000", mediaDays: "60", logDays: "45" }, "messageDays", "Enter a whole number of days from 30 to 2555."],
      [{ messageDays: "365", mediaDays: "60", logDays: "400" }, "logDays", "Enter a whole number of days from 30 to 365."],
      [{ messageDays: "365", mediaDays: "60", logDays: "4.5" }, "logDays", "Enter a whole number of days from 30 to 365."],
      [{ messageDays: "100", mediaDays: "200", logDays: "45" }, "mediaDays", "Media cannot be kept longer than message bodies."],
    ];
    for (const [fields, field, words] of refusals) {
      const refused = await post(cookie, fields);
      expect(refused.status, JSON.stringify(fields)).toBe(400);
      expect(refused.data.result.error[field], JSON.stringify(fields)).toEqual([words]);
    }
    expect(await policyOf(organization.id)).toEqual({ message_retention_days: 365, media_retention_days: 60, log_retention_days: 45 });
    // The database holds the same limits, whatever code writes.
    await expect(db().execute(sql`update organizations set log_retention_days = 366 where id = ${organization.id}`)).rejects.toThrow();
    await expect(db().execute(sql`update organizations set media_retention_days = 400 where id = ${organization.id}`)).rejects.toThrow();
  });

  it("is refused to an agent (403, nothing changed)", async () => {
    const { organization, email, password, user } = await createVerifiedUser({ businessName: "Retention Agents Ltd" });
    await db().execute(sql`update users set org_role = 'agent' where id = ${user.id}`);
    const cookie = await signedInCookie(email, password);
    const refused = await post(cookie, { messageDays: "30", mediaDays: "30", logDays: "30" });
    expect(refused.status).toBe(403);
    expect(await policyOf(organization.id)).toEqual({ message_retention_days: 730, media_retention_days: 90, log_retention_days: 90 });
  });
});

/** One tenant's records, each `days` old: a message of each direction, an inbound file, activity, webhook deliveries. */
async function recordsOf(organizationId: string, days: number, tag: string) {
  const stored = await fileStorage().write([new TextEncoder().encode(`photo ${tag}`)], { maxBytes: 1000, organisationId: organizationId });
  const [file] = await rawQuery<{ id: string }>(
    `insert into media_files (organization_id, direction, mime_type, size, sha256, storage_key, created_at)
     values ($1, 'inbound', 'image/jpeg', $2, $3, $4, now() - make_interval(days => $5)) returning id`,
    [organizationId, stored.size, stored.sha256, stored.key, days],
  );
  await rawQuery(
    `insert into messages (organization_id, direction, status, body, wamid, message_type, payload, media_file_id, created_at, accepted_at)
     values ($1, 'inbound', 'received', $2, $3, 'image', '{"type":"image","image":{"caption":"secret"}}'::jsonb, $4, now() - make_interval(days => $5), null),
            ($1, 'outbound', 'delivered', $6, $7, 'text', '{"type":"text","text":{"body":"secret"}}'::jsonb, null, now() - make_interval(days => $5), now() - make_interval(days => $5))`,
    [organizationId, `in ${tag}`, `wamid.in.${tag}`, file!.id, days, `out ${tag}`, `wamid.out.${tag}`],
  );
  await rawQuery(
    `insert into activity_logs (organization_id, type, status, action, details, created_at)
     values ($1, 'settings', 'success', 'Organisation details updated', $2, now() - make_interval(days => $3))`,
    [organizationId, tag, days],
  );
  await rawQuery(
    `insert into webhook_deliveries (organization_id, event_type, payload, status, created_at)
     values ($1, 'message.delivered', '{}'::json, 'delivered', now() - make_interval(days => $2)),
            ($1, 'message.delivered', '{}'::json, 'pending', now() - make_interval(days => $2))`,
    [organizationId, days],
  );
  return { key: stored.key };
}

/** Whether the storage still holds `key` (its bytes read to the end). */
async function exists(key: string) {
  try {
    const stream = await fileStorage().read(key);
    for await (const chunk of stream) expect(chunk).toBeTruthy();
    return true;
  } catch (error) {
    if (error instanceof StorageNotFoundError) return false;
    throw error;
  }
}

async function stateOf(organizationId: string) {
  return {
    messages: await rawQuery<{ wamid: string; body: string; payload: unknown; expired: boolean; has_file: boolean }>(
      `select wamid, body, payload, body_expired_at is not null as expired, media_file_id is not null as has_file
       from messages where organization_id = $1 order by wamid`,
      [organizationId],
    ),
    files: (await rawQuery<{ n: number }>(`select count(*)::int as n from media_files where organization_id = $1`, [organizationId]))[0]!.n,
    activity: (
      await rawQuery<{ details: string }>(
        `select details from activity_logs where organization_id = $1 and action = 'Organisation details updated' order by details`,
        [organizationId],
      )
    ).map((row) => row.details),
    deliveries: (
      await rawQuery<{ status: string }>(`select status from webhook_deliveries where organization_id = $1 order by status`, [
        organizationId,
      ])
    ).map((row) => row.status),
    money: (await rawQuery<{ n: number }>(`select count(*)::int as n from wallet_entries where organization_id = $1`, [organizationId]))[0]!
      .n,
    removals: await rawQuery<{ details: string }>(
      `select details from activity_logs where organization_id = $1 and action = 'Retention removed old data'`,
      [organizationId],
    ),
  };
}

describe("the retention job", () => {
  it("removes exactly what is past each organisation's retention, nothing of another tenant's or of money documents, and nothing more a second time", async () => {
    const short = await createVerifiedUser({ businessName: "Short Memory Ltd" });
    const long = await createVerifiedUser({ businessName: "Long Memory Ltd" });
    await db().execute(
      sql`update organizations set message_retention_days = 60, media_retention_days = 40, log_retention_days = 30 where id = ${short.organization.id}`,
    );
    // Past the short tenant's media and logs, not its bodies; past all three; recent.
    const shortMid = await recordsOf(short.organization.id, 50, "a-50");
    const shortOld = await recordsOf(short.organization.id, 70, "b-70");
    const shortNew = await recordsOf(short.organization.id, 10, "c-10");
    // The other tenant (the defaults: 730, 90, 90) has records as old: all kept.
    const longOld = await recordsOf(long.organization.id, 70, "b-70");
    // A wallet entry three years old: an accounting record, kept.
    await rawQuery(
      `insert into wallet_entries (organization_id, kind, amount_cents, balance_after_cents, held_after_cents, description, created_at)
       values ($1, 'topup', 100000, 100000, 0, 'M-Pesa top-up', now() - interval '3 years')`,
      [short.organization.id],
    );

    await enforceAllRetention();

    const after = await stateOf(short.organization.id);
    expect(after.messages).toEqual([
      {
        wamid: "wamid.in.a-50",
        body: "in a-50",
        payload: { type: "image", image: { caption: "secret" } },
        expired: false,
        has_file: false,
      },
      { wamid: "wamid.in.b-70", body: "", payload: null, expired: true, has_file: false },
      { wamid: "wamid.in.c-10", body: "in c-10", payload: { type: "image", image: { caption: "secret" } }, expired: false, has_file: true },
      { wamid: "wamid.out.a-50", body: "out a-50", payload: { type: "text", text: { body: "secret" } }, expired: false, has_file: false },
      { wamid: "wamid.out.b-70", body: "", payload: null, expired: true, has_file: false },
      { wamid: "wamid.out.c-10", body: "out c-10", payload: { type: "text", text: { body: "secret" } }, expired: false, has_file: false },
    ]);
    expect(after.files).toBe(1);
    expect([await exists(shortMid.key), await exists(shortOld.key), await exists(shortNew.key)]).toEqual([false, false, true]);
    expect(after.activity).toEqual(["c-10"]);
    // Pending deliveries are still to be sent, however old.
    expect(after.deliveries).toEqual(["delivered", "pending", "pending", "pending"]);
    expect(after.money).toBe(1);
    expect(after.removals).toEqual([{ details: "Message bodies removed: 2; media files: 2; log records: 4" }]);

    const other = await stateOf(long.organization.id);
    expect(other.messages.map((message) => [message.wamid, message.body, message.expired, message.has_file])).toEqual([
      ["wamid.in.b-70", "in b-70", false, true],
      ["wamid.out.b-70", "out b-70", false, false],
    ]);
    expect(other.files).toBe(1);
    expect(await exists(longOld.key)).toBe(true);
    expect(other.activity).toEqual(["b-70"]);
    expect(other.deliveries).toEqual(["delivered", "pending"]);
    expect(other.removals).toEqual([]);

    // Twice: nothing more is removed, nothing more is written.
    const again = await enforceAllRetention();
    expect([again.bodies, again.media, again.logs]).toEqual([0, 0, 0]);
    expect(await stateOf(short.organization.id)).toEqual(after);
    expect(await stateOf(long.organization.id)).toEqual(other);
  });

  it("shows an expired message in the inbox as removed, in words", () => {
    const content = messageContent({
      id: "x",
      direction: "inbound",
      messageType: "text",
      body: "",
      payload: null,
      template: null,
      mediaFile: null,
      errorTitle: null,
      errorDetails: null,
      bodyExpired: true,
    });
    expect(content).toEqual({
      kind: "unsupported",
      text: "This message's content was removed: it was older than the organisation keeps messages.",
    });
  });
});

/** The month `offset` months from this one (UTC), as a partition's suffix and its first day. */
function month(offset: number) {
  const now = new Date();
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
  return { suffix: `${first.getUTCFullYear()}_${String(first.getUTCMonth() + 1).padStart(2, "0")}`, first };
}

describe("monthly partitions", () => {
  it("are made ahead: a missing month is made again, with the rows its default partition took", async () => {
    const { organization } = await createVerifiedUser({ businessName: "Partition Ahead Ltd" });
    await createPartitionsAhead();
    for (const table of ["activity_logs", "webhook_events", "admin_audit_log", "webhook_deliveries"] as const) {
      const names = await partitionsOf(table);
      for (let offset = 0; offset <= PARTITION_MONTHS_AHEAD; offset++) expect(names).toContain(`${table}_p${month(offset).suffix}`);
      expect(names).toContain(`${table}_default`);
    }
    const last = month(PARTITION_MONTHS_AHEAD);
    await db().execute(sql.raw(`drop table activity_logs_p${last.suffix}`));
    const at = new Date(last.first.getTime() + 2 * 86_400_000).toISOString();
    await rawQuery(
      `insert into activity_logs (organization_id, type, status, action, details, created_at) values ($1, 'settings', 'success', 'Ahead', 'x', $2)`,
      [organization.id, at],
    );
    const where = async () =>
      (await rawQuery<{ part: string }>(`select tableoid::regclass::text as part from activity_logs where action = 'Ahead'`))[0]!.part;
    expect(await where()).toBe("activity_logs_default");
    expect(await createPartitionsAhead()).toBe(1);
    expect(await where()).toBe(`activity_logs_p${last.suffix}`);
    expect(await createPartitionsAhead()).toBe(0);
  });

  it("past the platform's longest retention are dropped whole, and nothing newer", async () => {
    const { organization } = await createVerifiedUser({ businessName: "Partition Drop Ltd" });
    const old = month(-14);
    await rawQuery(`select jumbe_ensure_month_partition('activity_logs', 'created_at', $1::date)`, [old.first.toISOString().slice(0, 10)]);
    await rawQuery(
      `insert into activity_logs (organization_id, type, status, action, details, created_at) values ($1, 'settings', 'success', 'Long ago', 'x', $2)`,
      [organization.id, new Date(old.first.getTime() + 86_400_000).toISOString()],
    );
    expect(await partitionsOf("activity_logs")).toContain(`activity_logs_p${old.suffix}`);
    const before = await partitionsOf("activity_logs");

    expect(await dropExpiredPartitions()).toEqual([`activity_logs_p${old.suffix}`]);
    expect(await partitionsOf("activity_logs")).toEqual(before.filter((name) => name !== `activity_logs_p${old.suffix}`));
    expect(await rawQuery(`select 1 from activity_logs where action = 'Long ago'`)).toEqual([]);
    expect(await dropExpiredPartitions()).toEqual([]);
  });
});
