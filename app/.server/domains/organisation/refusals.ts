import { Refusal } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";
/**
 * Why a change to the organisation is refused: a stable code, a plain sentence, and the form field
 * it is about when there is one. Nothing has changed when one is thrown.
 */
export const refuseOrganisation = (
  status: 400 | 403 | 409,
  code: "forbidden" | "wrong_password" | "name_mismatch" | "already_closing" | "not_closing" | "grace_over",
  message: string,
  field?: "password" | "confirmName",
) => new Refusal({ domain: "organisation", status, code, message, field });

/** The sentences, each read when used (in the request's language). */
export const ORGANISATION_REFUSALS = {
  get forbidden() {
    return m.settings_organisation_refusal_forbidden();
  },
  get ownerOnly() {
    return m.settings_organisation_refusal_owner_only();
  },
  get wrongPassword() {
    return m.settings_refusal_wrong_password();
  },
  get alreadyClosing() {
    return m.settings_organisation_refusal_already_closing();
  },
  get notClosing() {
    return m.settings_organisation_refusal_not_closing();
  },
  get graceOver() {
    return m.settings_organisation_refusal_grace_over();
  },
};
