import { Refusal } from "../../infrastructure/refusal";

export type ContactRefusalStatus = 400 | 404 | 409 | 422;

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

/**
 * Why Jumbe will not store a contact change: a stable code for programs, a plain sentence for people
 * (in the request's language), and the form field it shows at (the code's own unless `field` says).
 */
export const refuseContact = (status: ContactRefusalStatus, code: ContactRefusalCode, message: string, field?: string) =>
  new Refusal({ domain: "contact", status, code, message, field: field ?? contactFieldOf(code) });

/** Which field of the contact forms a refusal is about; undefined for the whole form. */
function contactFieldOf(code: ContactRefusalCode): string | undefined {
  switch (code) {
    case "invalid_phone_number":
    case "duplicate_phone":
    case "erased_contact":
      return "phone";
    case "invalid_name":
      return "name";
    case "invalid_tag":
      return "tags";
    case "invalid_consent":
      return "evidence";
    default:
      return undefined;
  }
}
