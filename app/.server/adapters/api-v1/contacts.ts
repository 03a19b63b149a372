import type { z } from "zod";
import { deleteContact, getContact, listContacts, saveContact, setConsent, updateContact } from "../../domains/contacts/manage";
import { refusalProblem } from "./problem";
import {
  decodeContactCursor,
  encodeContactCursor,
  type ContactCreate,
  type ContactsQuery,
  type ContactUpdate,
  type ConsentInput,
} from "./contact-schemas";

/** The contact book's refusals in the API's `{ code, message }`. */
async function answer<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw refusalProblem(error, "contact");
  }
}

export async function listApiContacts(organizationId: string, query: z.output<typeof ContactsQuery>) {
  const page = await listContacts(
    organizationId,
    { search: query.search, tag: query.tag, optIn: query.optIn },
    { limit: query.limit, cursor: query.cursor ? (decodeContactCursor(query.cursor) ?? undefined) : undefined },
  );
  return { data: page.contacts, nextCursor: page.next ? encodeContactCursor(page.next.at, page.next.id) : null };
}

/** POST /api/v1/contacts: one contact per number, so a known number is updated (upsert). */
export async function saveApiContact(organizationId: string, body: z.output<typeof ContactCreate>) {
  const { consent, ...fields } = body;
  const { contact } = await answer(saveContact({ organizationId }, fields, { upsert: true, consent }));
  return contact;
}

export const getApiContact = (organizationId: string, id: string) => answer(getContact(organizationId, id));
export const updateApiContact = (organizationId: string, id: string, body: z.output<typeof ContactUpdate>) =>
  answer(updateContact({ organizationId }, id, body));
export async function deleteApiContact(organizationId: string, id: string) {
  await answer(deleteContact({ organizationId }, id));
  return undefined;
}
export const setApiConsent = (organizationId: string, id: string, body: z.output<typeof ConsentInput>) =>
  answer(setConsent({ organizationId }, id, body));
