import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { hubspotCall, type HubspotConnection } from "./calls";

const LOG_BATCH = 100;
/** HubSpot's communication body is long text; a longer message is cut. */
const BODY_MAX = 60_000;

interface MessageRow {
  id: string;
  body: string;
  message_type: string;
  direction: "inbound" | "outbound";
  at: Date | string;
  hubspot_id: string;
  created_at: Date | string;
  seq: string;
}

/** The batch under way (its message ids), noted before its call, or none: in the connection's sync state. */
async function notePending(connection: HubspotConnection, messageIds: string[]) {
  await db().execute(sql`
    update integration_connections set sync_state = coalesce(sync_state, '{}'::jsonb) || jsonb_build_object('hubspotLogPending', ${JSON.stringify(messageIds)}::jsonb)
    where organization_id = ${connection.organizationId} and provider = 'hubspot' and status = 'connected'`);
}

/** Each message's communication id, stored (a message already stored keeps its own). */
async function storeLogged(connection: HubspotConnection, done: { messageId: string; communicationId: string }[]) {
  if (!done.length) return;
  await db().execute(sql`
    insert into hubspot_logged_messages (message_id, organization_id, hub_id, communication_id)
    select m.id, ${connection.organizationId}, ${connection.hubId}, x.communication_id
    from unnest(${sql.param(done.map((d) => d.messageId))}::uuid[], ${sql.param(done.map((d) => d.communicationId))}::text[]) as x(message_id, communication_id)
    join messages m on m.id = x.message_id and m.organization_id = ${connection.organizationId}
    on conflict (message_id) do nothing`);
}

/**
 * A batch noted as under way and never finished (the process stopped between HubSpot's answer and
 * the write of its ids): the communications HubSpot made for it are found by their
 * `jumbe_message_id` and stored, so only the rest is logged again. Answers how many were found.
 */
async function adoptPending(connection: HubspotConnection) {
  const [row] = await queryRows<{ pending: unknown }>(
    db(),
    sql`select sync_state->'hubspotLogPending' as pending from integration_connections
        where organization_id = ${connection.organizationId} and provider = 'hubspot' and status = 'connected'`,
  );
  const pending = Array.isArray(row?.pending) ? row.pending.filter((id): id is string => typeof id === "string" && UUID.test(id)) : [];
  if (!pending.length) return 0;
  const found = await hubspotCall(connection, (client, token) => client.findLoggedMessages(token, pending));
  const wanted = new Set(pending);
  const done = found.filter((f) => f.id && wanted.has(f.messageId)).map((f) => ({ messageId: f.messageId, communicationId: f.id }));
  await storeLogged(connection, done);
  await notePending(connection, []);
  return done.length;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Messages read a pass: each pass reads its range once, sorted; the calls then take 100 of them at a time. */
const PASS_LIMIT = 5_000;
/** How far before the cursor a run reads again: a message's `created_at` is its transaction's start, so one committed later than that is still found. */
const LATE_COMMIT_MARGIN = "5 minutes";
/** A message still waiting to be sent holds the cursor back for this long; older ones are the sweep's. */
const PENDING_HOLD = "1 hour";
/** The sweep: every linked contact's messages read whole, this often (decision 172). */
const SWEEP_EVERY_MS = 6 * 60 * 60 * 1000;

/** Where the last run left the message log, in the connection's sync state (decision 172). */
interface LogCursor {
  /** Messages created from this time on (less the margin) are read; earlier ones were all logged or are the sweep's. */
  from: string;
  /** When every linked contact's messages were last read whole. */
  sweptAt: string;
}

function cursorOf(connection: HubspotConnection): LogCursor | null {
  const value = connection.syncState.hubspotLog as Partial<LogCursor> | undefined;
  if (!value || typeof value.from !== "string" || typeof value.sweptAt !== "string") return null;
  if (Number.isNaN(Date.parse(value.from)) || Number.isNaN(Date.parse(value.sweptAt))) return null;
  return { from: value.from, sweptAt: value.sweptAt };
}

/**
 * The range a pass reads: a sweep reads every linked contact's messages; otherwise the messages
 * created since the cursor (less the margin), and all of the messages of contacts linked since then
 * (their earlier messages were never read with a link).
 */
type Range = { sweep: true } | { sweep: false; from: string };

function passRows(connection: HubspotConnection, range: Range) {
  const eligible = sql`(m.direction = 'inbound' or m.status in ('sent', 'delivered', 'read'))
        and not exists (select 1 from hubspot_logged_messages g where g.message_id = m.id)`;
  const columns = sql`m.id, m.body, m.message_type, m.direction, coalesce(m.sent_at, m.created_at) as at, l.hubspot_id, m.created_at, m.seq`;
  const links = sql`hubspot_contact_links l on l.organization_id = m.organization_id and l.hub_id = ${connection.hubId} and l.contact_id = m.contact_id`;
  if (range.sweep)
    return queryRows<MessageRow>(
      db(),
      sql`select ${columns} from messages m join ${links}
          where m.organization_id = ${connection.organizationId} and ${eligible}
          order by m.created_at, m.seq limit ${PASS_LIMIT}`,
    );
  // Two arms, each on its own index: the organisation's recent messages (messages_org_created_idx), and
  // the new links' contacts' messages (messages_contact_idx).
  const since = sql`${range.from}::timestamptz - ${LATE_COMMIT_MARGIN}::interval`;
  return queryRows<MessageRow>(
    db(),
    sql`select * from (
          select ${columns} from messages m join ${links}
          where m.organization_id = ${connection.organizationId} and m.created_at >= ${since} and ${eligible}
          union
          select ${columns} from hubspot_contact_links l
          join messages m on m.contact_id = l.contact_id and m.organization_id = l.organization_id
          where l.organization_id = ${connection.organizationId} and l.hub_id = ${connection.hubId}
            and l.created_at >= ${since} and m.contact_id is not null and ${eligible}
        ) x order by created_at, seq limit ${PASS_LIMIT}`,
  );
}

/**
 * Where the next run starts: this run's start, or earlier when a linked contact's message of the
 * last hour is still waiting to be sent (it is logged once sent, so the cursor waits for it).
 */
async function nextFrom(connection: HubspotConnection, range: Range, startedAt: string) {
  const floor = range.sweep ? sql`` : sql`and m.created_at >= ${range.from}::timestamptz - ${LATE_COMMIT_MARGIN}::interval`;
  const [row] = await queryRows<{ from: string }>(
    db(),
    sql`select least(${startedAt}::timestamptz, (
          select min(m.created_at) from messages m
          join hubspot_contact_links l on l.organization_id = m.organization_id and l.hub_id = ${connection.hubId} and l.contact_id = m.contact_id
          where m.organization_id = ${connection.organizationId}
            and m.created_at >= ${startedAt}::timestamptz - ${PENDING_HOLD}::interval ${floor}
            and m.direction = 'outbound' and m.status not in ('sent', 'delivered', 'read', 'failed')
        )) as from`,
  );
  return new Date(row!.from).toISOString();
}

async function saveCursor(connection: HubspotConnection, cursor: LogCursor) {
  await db().execute(sql`
    update integration_connections set sync_state = coalesce(sync_state, '{}'::jsonb) || jsonb_build_object('hubspotLog', ${JSON.stringify(cursor)}::jsonb)
    where organization_id = ${connection.organizationId} and provider = 'hubspot' and status = 'connected'`);
}

/**
 * Logs every message of linked contacts' conversations on their HubSpot contact, as WhatsApp
 * communications, 100 a call, oldest first. A message is logged once: its row in
 * hubspot_logged_messages is written with the ids HubSpot answered, and only messages without one
 * are sent. Each communication carries its `jumbe_message_id`, and each batch is noted as under way
 * before its call (decision 091): a batch HubSpot made but Jumbe never recorded is found by a
 * search and stored at the next run, not logged twice. Failed and not-yet-sent messages wait.
 *
 * A run reads only what may be new since the last (decision 172): the messages created since its
 * cursor and those of newly linked contacts; every six hours a sweep reads all linked contacts'
 * messages, for anything the cursor passed (a message that failed and was delivered after all, one
 * that waited more than an hour). Answers how many were logged.
 */
export async function logMessages(connection: HubspotConnection) {
  let logged = await adoptPending(connection);
  const [clock] = await queryRows<{ now: string }>(db(), sql`select now() as now`);
  const startedAt = new Date(clock!.now).toISOString();
  const cursor = cursorOf(connection);
  const sweep = !cursor || Date.parse(startedAt) - Date.parse(cursor.sweptAt) >= SWEEP_EVERY_MS;
  const range: Range = sweep ? { sweep: true } : { sweep: false, from: cursor.from };
  for (;;) {
    const rows = await passRows(connection, range);
    for (let i = 0; i < rows.length; i += LOG_BATCH) {
      const batch = rows.slice(i, i + LOG_BATCH);
      const done = await logBatch(connection, batch);
      logged += done;
      // HubSpot took part of a batch: the rest waits for the next run, and so does the cursor.
      if (done < batch.length) return logged;
    }
    if (rows.length < PASS_LIMIT) break;
  }
  await saveCursor(connection, { from: await nextFrom(connection, range, startedAt), sweptAt: sweep ? startedAt : cursor!.sweptAt });
  return logged;
}

/** One call to HubSpot for up to 100 messages, noted before and stored after; answers how many HubSpot made. */
async function logBatch(connection: HubspotConnection, rows: MessageRow[]) {
  await notePending(
    connection,
    rows.map((r) => r.id),
  );
  const ids = await hubspotCall(connection, (client, token) =>
    client.logWhatsappMessages(
      token,
      rows.map((r) => ({
        contactId: r.hubspot_id,
        body: `${r.direction === "inbound" ? "←" : "→"} ${r.body || `[${r.message_type}]`}`.slice(0, BODY_MAX),
        at: new Date(r.at),
        jumbeMessageId: r.id,
      })),
    ),
  );
  const done = rows.flatMap((row, i) => (ids[i] ? [{ messageId: row.id, communicationId: ids[i] }] : []));
  await storeLogged(connection, done);
  await notePending(connection, []);
  return done.length;
}
