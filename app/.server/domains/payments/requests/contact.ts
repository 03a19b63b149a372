import { rawQuery } from "../../../infrastructure/db/client";
import { createPaymentRequest, type RequestActor } from "./create";
import { refusePaymentRequest } from "./input";
import type { PaymentRequestView } from "./views";
import { m } from "~/paraglide/messages";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * "Request payment" on a contact's page (issue 76): the same request as the composer's, in the
 * contact's latest conversation (source `contact`). Another organisation's contact, or no contact,
 * is not found (404); a contact who never wrote has no conversation to ask in (422).
 */
export async function requestPaymentFromContact(
  actor: RequestActor & { userId: string },
  contactId: string,
  input: Parameters<typeof createPaymentRequest>[2],
): Promise<PaymentRequestView> {
  if (!UUID.test(contactId)) throw refusePaymentRequest(404, "contact_not_found", m.messaging_contact_not_found());
  const [contact] = await rawQuery<{ conversation_id: string | null }>(
    `select (select v.id from conversations v where v.organization_id = c.organization_id and v.contact_id = c.id
             order by v.last_message_at desc nulls last limit 1) as conversation_id
     from contacts c where c.organization_id = $1 and c.id = $2::uuid`,
    [actor.organizationId, contactId],
  );
  if (!contact) throw refusePaymentRequest(404, "contact_not_found", m.messaging_contact_not_found());
  if (!contact.conversation_id) throw refusePaymentRequest(422, "no_conversation", m.payreq_refusal_no_conversation(), "payment");
  return createPaymentRequest(actor, contact.conversation_id, input, { source: "contact", sourceId: contactId });
}
