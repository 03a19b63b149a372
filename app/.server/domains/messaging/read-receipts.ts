import { rawQuery } from "../../infrastructure/db/client";
import { decryptSecret } from "../../infrastructure/security/crypto";
import { graphClient, type GraphClient } from "../../infrastructure/clients/whatsapp-graph/graph-client";
import { refuse } from "./refusals";
import { m } from "~/paraglide/messages";

/**
 * Marks a customer's message as read (the blue ticks on their phone), optionally showing them the
 * typing indicator while the answer is written: Meta shows it for up to 25 seconds or until the
 * business's next message. Reading a message also reads every earlier one of that conversation at
 * Meta, so Jumbe records the time on all of them. Only the tenant's own inbound messages qualify.
 */
export async function markInboundRead(
  organizationId: string,
  messageId: string,
  options: { typing?: boolean } = {},
  client: GraphClient = graphClient(),
): Promise<{ readAt: string; alreadyRead: boolean }> {
  const [message] = await rawQuery<{
    wamid: string | null;
    phone_number_id: string;
    contact_id: string | null;
    read_at: Date | string | null;
    created_at: Date | string;
    created_text: string;
    access_token_encrypted: string | null;
    refused: boolean | null;
  }>(
    `select m.wamid, m.phone_number_id, m.contact_id, m.read_at, m.created_at, m.created_at::text as created_text, a.access_token_encrypted,
            a.token_refused_at is not null as refused
     from messages m
     left join whatsapp_phone_numbers p on p.phone_number_id = m.phone_number_id and p.organization_id = m.organization_id
       and p.disconnected_at is null
     left join whatsapp_accounts a on a.id = p.account_id and a.status = 'connected'
     where m.organization_id = $1 and m.id = $2 and m.direction = 'inbound'`,
    [organizationId, messageId],
  );
  if (!message?.wamid) throw refuse(404, "message_not_found", m.validation_send_inbound_not_found());
  if (!message.access_token_encrypted) throw refuse(409, "no_whatsapp_number", m.validation_send_number_disconnected());
  if (message.refused) throw refuse(409, "whatsapp_reconnect_needed", m.validation_send_account_refused());
  // A read receipt is shown once; the typing indicator is worth sending again.
  if (message.read_at && !options.typing) return { readAt: new Date(message.read_at).toISOString(), alreadyRead: true };
  await client.markRead(message.phone_number_id, decryptSecret(message.access_token_encrypted), message.wamid, options.typing ?? false);
  const [marked] = await rawQuery<{ read_at: Date | string }>(
    `with marked as (
       update messages set read_at = coalesce(read_at, now())
       where organization_id = $1 and direction = 'inbound' and phone_number_id = $2 and read_at is null
         and (id = $3 or ($4::uuid is not null and contact_id = $4::uuid and created_at <= $5::timestamptz))
       returning id, read_at)
     select coalesce((select read_at from marked where id = $3), (select read_at from messages where id = $3)) as read_at`,
    // As the database wrote it: a JavaScript Date would drop the microseconds and miss a message of the same instant.
    [organizationId, message.phone_number_id, messageId, message.contact_id, message.created_text],
  );
  return { readAt: new Date(marked!.read_at).toISOString(), alreadyRead: !!message.read_at };
}
