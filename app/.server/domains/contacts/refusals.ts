/** Why Jumbe will not store a contact change: a stable code for programs and a plain sentence for people. */
export class ContactRefusal extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 422,
    readonly code: ContactRefusalCode,
    message: string,
  ) {
    super(message);
    this.name = "ContactRefusal";
  }
}

export type ContactRefusalCode =
  | "invalid_phone_number"
  | "invalid_name"
  | "invalid_tag"
  | "unknown_attribute"
  | "invalid_attribute"
  | "contact_not_found"
  | "duplicate_phone"
  | "erased_contact"
  | "invalid_consent";

export const refuseContact = (status: ContactRefusal["status"], code: ContactRefusalCode, message: string) =>
  new ContactRefusal(status, code, message);
