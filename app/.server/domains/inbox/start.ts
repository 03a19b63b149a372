import { sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { queryRow } from "../../infrastructure/db/query";
import { saveContact, contactPhone } from "../contacts";
import { logConversationEvents } from "../messaging";
import type { InboxActor } from "./actions";
import { Refusal, isRefusal } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";

/** How many contacts the search box lists at most. */
export const START_MATCHES = 20;
export const START_SEARCH_MAX = 100;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A refusal the New conversation page shows at its field (`form`: above the form), keeping what was typed. */
export const refuseStart = (status: 400 | 404 | 409 | 422, message: string, field: "contact" | "phone" | "number" | "form" = "form") =>
  new Refusal({ domain: "start", status, message, field });

export interface StartContact {
  id: string;
  name: string;
  phone: string | null;
  optedOut: boolean;
}

/** The organisation's connected business numbers, to write from. */
export async function startNumbers(organizationId: string) {
  const rows = await rawQuery<{ phone_number_id: string; phone_digits: string; verified_name: string | null }>(
    `select distinct on (phone_number_id) phone_number_id, phone_digits, verified_name from whatsapp_phone_numbers
     where organization_id = $1 and disconnected_at is null order by phone_number_id, created_at`,
    [organizationId],
  );
  return rows.map((r) => ({ id: r.phone_number_id, label: `+${r.phone_digits}${r.verified_name ? ` (${r.verified_name})` : ""}` }));
}

const contactOf = (r: { id: string; name: string; phone: string | null; opt_in: string }): StartContact => ({
  id: r.id,
  name: r.name || r.phone || m.inbox_whatsapp_user(),
  phone: r.phone,
  optedOut: r.opt_in === "opted_out",
});

/** The organisation's contact with this id, or null (unknown, another organisation's, not an id). */
export async function startContact(organizationId: string, id: string): Promise<StartContact | null> {
  if (!UUID.test(id)) return null;
  const [row] = await rawQuery<{ id: string; name: string; phone: string | null; opt_in: string }>(
    `select id, name, phone, opt_in from contacts where organization_id = $1 and id = $2::uuid`,
    [organizationId, id],
  );
  return row ? contactOf(row) : null;
}

/** Contacts whose name or number holds `q`, by name, at most START_MATCHES. */
export async function searchStartContacts(organizationId: string, q: string): Promise<StartContact[]> {
  const text = q.trim().slice(0, START_SEARCH_MAX).toLowerCase();
  if (!text) return [];
  const like = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const digits = text.replace(/[\s()+-]/g, "");
  const rows = await rawQuery<{ id: string; name: string; phone: string | null; opt_in: string }>(
    `select id, name, phone, opt_in from contacts
     where organization_id = $1 and (lower(name) like $2 or coalesce(phone, '') like $3)
     order by lower(name), id limit ${START_MATCHES}`,
    [organizationId, like(text), /^\d{3,}$/.test(digits) ? like(digits) : like(text)],
  );
  return rows.map(contactOf);
}

/** The conversation of this contact with this business number, if there is one already. */
export async function existingConversation(organizationId: string, contactId: string, phoneNumberId: string) {
  const [row] = await rawQuery<{ id: string }>(
    `select id from conversations where organization_id = $1 and contact_id = $2::uuid and phone_number_id = $3`,
    [organizationId, contactId, phoneNumberId],
  );
  return row?.id ?? null;
}

/**
 * Starts (or finds) the conversation with one customer from one business number: the contact by id,
 * or by a typed number (a new number becomes a contact named by it, added as by hand). Refused for a
 * customer who opted out, a number WhatsApp cannot reach, and a business number not connected.
 * Repeating it finds the same contact and conversation (one per customer per number).
 */
export async function startConversation(
  actor: InboxActor,
  input: { contactId?: string; phone?: string; phoneNumberId?: string },
): Promise<{ conversationId: string; created: boolean }> {
  const numbers = await startNumbers(actor.organizationId);
  if (!numbers.length) throw refuseStart(409, m.inbox_start_connect_first(), "form");
  const phoneNumberId = numbers.length === 1 ? numbers[0]!.id : (input.phoneNumberId ?? "");
  if (!numbers.some((n) => n.id === phoneNumberId)) throw refuseStart(422, m.inbox_start_choose_number(), "number");

  let contact: StartContact | null = null;
  const contactId = (input.contactId ?? "").trim();
  const typed = (input.phone ?? "").trim();
  if (contactId) {
    contact = await startContact(actor.organizationId, contactId);
    if (!contact) throw refuseStart(404, m.inbox_new_contact_not_found(), "contact");
  } else if (typed) {
    let phone: string;
    try {
      phone = contactPhone(typed);
    } catch (error) {
      if (isRefusal(error, "contact")) throw refuseStart(422, error.message, "phone");
      throw error;
    }
    contact = await contactByPhone(actor.organizationId, phone);
    if (!contact) {
      try {
        await saveContact({ organizationId: actor.organizationId, userId: actor.userId }, { name: phone, phone });
      } catch (error) {
        // Added a moment ago by another request (a double click): that one is the contact.
        if (!(isRefusal(error, "contact") && error.code === "duplicate_phone")) {
          if (isRefusal(error, "contact")) throw refuseStart(409, error.message, "phone");
          throw error;
        }
      }
      contact = await contactByPhone(actor.organizationId, phone);
      if (!contact) throw refuseStart(409, m.inbox_start_not_saved(), "phone");
    }
  } else throw refuseStart(422, m.inbox_start_choose_contact(), "phone");

  if (contact.optedOut) throw refuseStart(409, m.inbox_start_opted_out({ name: contact.name }), "form");
  if (!contact.phone) throw refuseStart(409, m.inbox_start_username_only(), "form");

  return db().transaction(async (tx) => {
    const inserted = await queryRow<{ id: string }>(
      tx,
      sql`
        insert into conversations (organization_id, phone_number_id, contact_id)
        values (${actor.organizationId}, ${phoneNumberId}, ${contact.id})
        on conflict (organization_id, phone_number_id, contact_id) do nothing
        returning id`,
    );
    if (inserted) {
      await logConversationEvents(tx, [{ organizationId: actor.organizationId, conversationId: inserted.id }]);
      return { conversationId: inserted.id, created: true };
    }
    const existing = (await queryRow<{ id: string }>(
      tx,
      sql`
        select id from conversations
        where organization_id = ${actor.organizationId} and phone_number_id = ${phoneNumberId} and contact_id = ${contact.id}`,
    ))!;
    return { conversationId: existing.id, created: false };
  });
}

async function contactByPhone(organizationId: string, phone: string) {
  const [row] = await rawQuery<{ id: string; name: string; phone: string | null; opt_in: string }>(
    `select id, name, phone, opt_in from contacts where organization_id = $1 and phone = $2`,
    [organizationId, phone],
  );
  return row ? contactOf(row) : null;
}
