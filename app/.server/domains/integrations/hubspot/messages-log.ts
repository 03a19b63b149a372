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

/**
 * Logs every message of linked contacts' conversations on their HubSpot contact, as WhatsApp
 * communications, 100 a call, oldest first. A message is logged once: its row in
 * hubspot_logged_messages is written with the ids HubSpot answered, and only messages without one
 * are sent. Each communication carries its `jumbe_message_id`, and each batch is noted as under way
 * before its call (decision 091): a batch HubSpot made but Jumbe never recorded is found by a
 * search and stored at the next run, not logged twice. Failed and not-yet-sent messages wait.
 * Answers how many were logged.
 */
export async function logMessages(connection: HubspotConnection) {
  let logged = await adoptPending(connection);
  for (;;) {
    const rows = await queryRows<MessageRow>(
      db(),
      sql`
      select m.id, m.body, m.message_type, m.direction, coalesce(m.sent_at, m.created_at) as at, l.hubspot_id
      from messages m
      join hubspot_contact_links l on l.organization_id = m.organization_id and l.hub_id = ${connection.hubId} and l.contact_id = m.contact_id
      where m.organization_id = ${connection.organizationId}
        and (m.direction = 'inbound' or m.status in ('sent', 'delivered', 'read'))
        and not exists (select 1 from hubspot_logged_messages g where g.message_id = m.id)
      order by m.seq limit ${LOG_BATCH}`,
    );
    if (!rows.length) return logged;
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
    if (done.length < rows.length) return logged + done.length;
    logged += done.length;
  }
}
