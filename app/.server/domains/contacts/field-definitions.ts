import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { recordActivity } from "../activity";
import { englishOf, words, type MessageKey } from "../../infrastructure/words/said";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import type { AttributeType } from "./attributes";
import type { Actor } from "./manage";
import { refuseContact } from "./refusals";
import { m } from "~/paraglide/messages";

export const ATTRIBUTE_TYPES: readonly AttributeType[] = ["text", "number", "date", "boolean"];
export const ATTRIBUTES_MAX = 50;
/** Each type as the activity log names it, in its reader's language. */
const TYPE_WORDS: Record<AttributeType, MessageKey> = {
  text: "app_activity_detail_field_type_text",
  number: "app_activity_detail_field_type_number",
  date: "app_activity_detail_field_type_date",
  boolean: "app_activity_detail_field_type_boolean",
};
const KEY = /^[a-z][a-z0-9_]{0,39}$/;
/** Keys that are a contact's own fields: an attribute by that name would be ambiguous in a template or a CSV. */
const RESERVED = new Set(["id", "name", "phone", "tags", "notes", "language", "opt_in", "optin", "created_at", "last_seen_at"]);

/** Defines a custom field: `key` (lower case, digits, underscores) as templates and CSVs name it, a label, a type. */
export async function defineAttribute(actor: Actor & { meta?: RequestMeta }, input: { key: string; label: string; type: string }) {
  const key = input.key.trim().toLowerCase();
  const label = input.label.replace(/\s+/g, " ").trim();
  if (!KEY.test(key)) throw refuseContact(422, "invalid_attribute", m.messaging_attribute_key_invalid());
  if (RESERVED.has(key)) throw refuseContact(422, "invalid_attribute", m.messaging_attribute_key_reserved({ key }));
  if (!label || label.length > 80) throw refuseContact(422, "invalid_attribute", m.messaging_attribute_label_required());
  if (!ATTRIBUTE_TYPES.includes(input.type as AttributeType))
    throw refuseContact(422, "invalid_attribute", m.messaging_attribute_type_required());
  await db().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`contact_attributes:${actor.organizationId}`}))`);
    const [{ n, same }] = (await queryRows<{ n: number; same: number }>(
      tx,
      sql`select count(*)::int as n, count(*) filter (where key = ${key})::int as same from contact_attributes where organization_id = ${actor.organizationId}`,
    )) as [{ n: number; same: number }];
    if (same) throw refuseContact(409, "invalid_attribute", m.messaging_attribute_key_taken({ key }));
    if (n >= ATTRIBUTES_MAX) throw refuseContact(409, "invalid_attribute", m.messaging_attribute_too_many({ max: ATTRIBUTES_MAX }));
    await tx.execute(
      sql`insert into contact_attributes (organization_id, key, label, type) values (${actor.organizationId}, ${key}, ${label}, ${input.type})`,
    );
  });
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Contact field added",
    details: englishOf(
      words("app_activity_detail_contact_field_added", { label, key, type: words(TYPE_WORDS[input.type as AttributeType]) }),
    ),
    meta: actor.meta,
  });
  return { key, label, type: input.type as AttributeType };
}

/** Removes a field's definition and, a batch at a time, its values from every contact. */
export async function removeAttribute(actor: Actor & { meta?: RequestMeta }, key: string) {
  const removed = await queryRow<{ label: string }>(
    db(),
    sql`delete from contact_attributes where organization_id = ${actor.organizationId} and key = ${key} returning label`,
  );
  if (!removed) throw refuseContact(404, "unknown_attribute", m.messaging_attribute_not_found());
  for (;;) {
    const done = (
      await queryRows<unknown>(
        db(),
        sql`update contacts set attributes = attributes - ${key}
        where id in (select id from contacts where organization_id = ${actor.organizationId} and attributes ? ${key} limit 5000)
        returning 1`,
      )
    ).length;
    if (done < 5000) break;
  }
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Contact field removed",
    details: `${removed.label} (${key})`,
    meta: actor.meta,
  });
}
