import { normaliseRecipient } from "../messaging";
import { refuseContact } from "./refusals";
import { withoutBidiControls } from "~/lib/names";
import { isRefusal } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";

/** At most this many tags a contact, each at most TAG_MAX characters. */
export const MAX_TAGS = 50;
export const TAG_MAX = 40;
export const NAME_MAX = 120;
export const NOTES_MAX = 4000;

/**
 * A contact's number in E.164: `0712 345 678`, `254712345678` and `+254 712 345 678` are one
 * person (Kenya unless the number says otherwise); anything that cannot be a real number is refused.
 */
export function contactPhone(input: string): string {
  try {
    return normaliseRecipient(input);
  } catch (error) {
    if (isRefusal(error, "send")) throw refuseContact(422, "invalid_phone_number", error.message);
    throw error;
  }
}

/**
 * A name as people write it: trimmed, single-spaced, 1 to NAME_MAX characters, no control characters
 * and no bidirectional controls (app/lib/names.ts). The forms, the CSV import and the API all come here.
 */
export function contactName(input: string): string {
  const name = withoutBidiControls(input)
    .replace(/\p{Cc}/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (!name) throw refuseContact(422, "invalid_name", m.messaging_contact_name_required());
  if ([...name].length > NAME_MAX) throw refuseContact(422, "invalid_name", m.messaging_contact_name_too_long({ max: NAME_MAX }));
  return name;
}

/** Tags lower-cased and trimmed, each once, in the order given. */
export function contactTags(input: readonly string[]): string[] {
  const tags: string[] = [];
  for (const raw of input) {
    const tag = raw.replace(/\s+/g, " ").trim().toLowerCase();
    if (!tag) continue;
    if ([...tag].length > TAG_MAX)
      throw refuseContact(422, "invalid_tag", m.messaging_contact_tag_too_long({ tag: tag.slice(0, TAG_MAX), max: TAG_MAX }));
    if (/[,\p{Cc}]/u.test(tag)) throw refuseContact(422, "invalid_tag", m.messaging_contact_tag_invalid({ tag }));
    if (!tags.includes(tag)) tags.push(tag);
  }
  if (tags.length > MAX_TAGS) throw refuseContact(422, "invalid_tag", m.messaging_contact_too_many_tags({ max: MAX_TAGS }));
  return tags;
}
