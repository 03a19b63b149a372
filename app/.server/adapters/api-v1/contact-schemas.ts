import { z } from "zod";
import { CONSENT_SOURCES } from "../../domains/contacts/consent";
import { MAX_TAGS, NAME_MAX, NOTES_MAX, TAG_MAX } from "../../domains/contacts/fields";
import { EVIDENCE_MAX } from "../../domains/contacts/consent";
import { withoutBidiControls } from "~/lib/names";

/** The contact endpoints' shapes; the OpenAPI document is generated from them. */

const AttributeValue = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);

const ContactFields = {
  // Bidirectional controls (U+202E and its kind) go before the length is checked: a name of nothing else is empty.
  name: z.string().overwrite(withoutBidiControls).min(1).max(NAME_MAX).describe("The person's name."),
  phone: z
    .string()
    .min(1)
    .max(40)
    .describe("Any form of the number: 0712 345 678, 254712345678 or +254 712 345 678 (Kenyan unless it has a country code)."),
  tags: z.array(z.string().max(TAG_MAX)).max(MAX_TAGS).describe("Labels for filters and segments (stored lower-case)."),
  attributes: z
    .record(z.string().max(60), AttributeValue)
    .describe("Your custom fields by key, each in its type (text, number, date as YYYY-MM-DD, boolean); null removes one."),
  language: z.enum(["en", "sw"]).nullable().describe("The language for Jumbe's own replies to this person."),
  notes: z.string().max(NOTES_MAX).nullable(),
};

export const ConsentInput = z
  .object({
    status: z.enum(["opted_in", "opted_out"]),
    source: z.enum(CONSENT_SOURCES).default("api").describe("Where the consent came from."),
    evidence: z.string().max(EVIDENCE_MAX).default("").describe("What shows it: the form, the message, the call."),
  })
  .strict()
  .meta({ id: "ConsentInput" });

export const ContactCreate = z
  .object({
    name: ContactFields.name,
    phone: ContactFields.phone,
    tags: ContactFields.tags.optional(),
    attributes: ContactFields.attributes.optional(),
    language: ContactFields.language.optional(),
    notes: ContactFields.notes.optional(),
    consent: ConsentInput.optional().describe("Record the person's consent with the contact."),
  })
  .strict()
  .meta({ id: "ContactCreate" });

export const ContactUpdate = z
  .object({
    name: ContactFields.name.optional(),
    phone: ContactFields.phone.optional(),
    tags: ContactFields.tags.optional().describe("Replaces the contact's tags."),
    attributes: ContactFields.attributes.optional().describe("Sets these fields; null removes one; others stay."),
    language: ContactFields.language.optional(),
    notes: ContactFields.notes.optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, "give at least one field to change")
  .meta({ id: "ContactUpdate" });

export const CONTACT_CREATE_EXAMPLE: z.input<typeof ContactCreate> = {
  name: "Amina Hassan",
  phone: "0712 345 678",
  tags: ["members", "nairobi"],
  language: "sw",
  consent: { status: "opted_in", source: "form", evidence: "Joined at the Nyota Sacco AGM, 14 November 2026" },
};

export const CONTACT_UPDATE_EXAMPLE: z.input<typeof ContactUpdate> = { tags: ["members", "nairobi", "vip"] };
export const CONSENT_EXAMPLE: z.input<typeof ConsentInput> = {
  status: "opted_out",
  source: "manual",
  evidence: "Asked by phone on 20 November 2026",
};

export const Contact = z
  .object({
    id: z.uuid(),
    name: z.string(),
    phone: z.string().nullable().describe("E.164, as stored."),
    waId: z.string().nullable().describe("The WhatsApp id Meta's messages carry."),
    tags: z.array(z.string()),
    attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    language: z.string().nullable(),
    notes: z.string().nullable(),
    optIn: z.enum(["opted_in", "opted_out", "unknown"]).describe("The latest event of the contact's consent ledger."),
    optInChangedAt: z.iso.datetime().nullable(),
    lastSeenAt: z.iso
      .datetime()
      .nullable()
      .describe("When the person last wrote to the business, to the minute: messages less than a minute after it leave it as it is."),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "Contact" });

export const ContactList = z
  .object({
    data: z.array(Contact).describe("Newest first."),
    nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page."),
  })
  .meta({ id: "ContactList" });

export const encodeContactCursor = (at: string, id: string) => Buffer.from(`${at}|${id}`).toString("base64url");

export function decodeContactCursor(value: string): { at: string; id: string } | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) return null;
  const [at, id, ...rest] = Buffer.from(value, "base64url").toString().split("|");
  if (rest.length || !/^\d{4}-\d{2}-\d{2}[ T][\d:.]+(Z|[+-]\d{2}(:?\d{2})?)$/.test(at ?? "") || !/^[0-9a-f-]{36}$/.test(id ?? ""))
    return null;
  return { at: at!, id: id! };
}

export const ContactsQuery = z
  .object({
    search: z.string().trim().max(100).optional().describe("Part of a name, a number in any form, or an attribute's value."),
    tag: z.string().trim().max(TAG_MAX).optional().describe("Only contacts with this tag."),
    optIn: z.enum(["opted_in", "opted_out", "unknown"]).optional(),
    cursor: z
      .string()
      .refine((v) => decodeContactCursor(v) !== null, "not a cursor of this list: pass nextCursor from the previous page")
      .optional()
      .describe("nextCursor of the previous page."),
    limit: z.coerce.number().int().min(1).max(100).default(25).describe("Contacts per page, 1 to 100."),
  })
  .strict();

export const ContactIdParams = z.object({ id: z.string().describe("The contact's id (a UUID) from the list or from saving it.") });
