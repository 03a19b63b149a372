import { Refusal } from "../../infrastructure/refusal";
/** Why Jumbe will not store a contact change: a stable code for programs and a plain sentence for people. */
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

export const refuseContact = (status: ContactRefusalStatus, code: ContactRefusalCode, message: string) =>
  new Refusal({ domain: "contact", status, code, message });
