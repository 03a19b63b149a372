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

/**
 * Logs every message of linked contacts' conversations on their HubSpot contact, as WhatsApp
 * communications, 100 a call, oldest first. A message is logged once: its row in
 * hubspot_logged_messages is written with the ids HubSpot answered, and only messages without one
 * are sent. Failed and not-yet-sent messages wait. Answers how many were logged.
 */
export async function logMessages(connection: HubspotConnection) {
  let logged = 0;
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
    const ids = await hubspotCall(connection, (client, token) =>
      client.logWhatsappMessages(
        token,
        rows.map((r) => ({
          contactId: r.hubspot_id,
          body: `${r.direction === "inbound" ? "←" : "→"} ${r.body || `[${r.message_type}]`}`.slice(0, BODY_MAX),
          at: new Date(r.at),
        })),
      ),
    );
    const done = rows.flatMap((row, i) => (ids[i] ? [{ messageId: row.id, communicationId: ids[i] }] : []));
    await db().execute(sql`
      insert into hubspot_logged_messages (message_id, organization_id, hub_id, communication_id)
      select x.message_id, ${connection.organizationId}, ${connection.hubId}, x.communication_id
      from unnest(${sql.param(done.map((d) => d.messageId))}::uuid[], ${sql.param(done.map((d) => d.communicationId))}::text[]) as x(message_id, communication_id)
      on conflict (message_id) do nothing`);
    if (done.length < rows.length) return logged + done.length;
    logged += done.length;
  }
}
