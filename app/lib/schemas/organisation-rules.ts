// The limits and words of the organisation forms, without zod: pages import them from here and load the
// schemas (organisation.ts) only when a form is used (decision 061).
import { m } from "~/paraglide/messages";

export const ORGANISATION_NAME_MAX = 120;

/** Days between closing the organisation and the erasure of its data; it can be reopened until then (decision 032). */
export const GRACE_DAYS = 30;

export const POSTAL_ADDRESS_MAX = 160;

/** KRA's PIN: a letter (P for companies and organisations, A for people), 9 digits, a letter. The database checks it too. */
export const KRA_PIN_PATTERN = /^[A-Z][0-9]{9}[A-Z]$/;

// Getters: each text is read in the language of the request (or page) that reports it, never at load.
export const ORGANISATION_MESSAGES = {
  get nameRequired() {
    return m.validation_organisation_name_required();
  },
  get nameMax() {
    return m.validation_organisation_name_max({ max: ORGANISATION_NAME_MAX });
  },
  get kraPin() {
    return m.validation_organisation_kra_pin();
  },
  get postalAddressMax() {
    return m.validation_organisation_postal_address_max({ max: POSTAL_ADDRESS_MAX });
  },
  get county() {
    return m.validation_organisation_county();
  },
  get industry() {
    return m.validation_organisation_industry();
  },
  get timeZone() {
    return m.validation_organisation_time_zone();
  },
  get language() {
    return m.validation_organisation_language();
  },
  get passwordRequired() {
    return m.validation_your_password_required();
  },
  get confirmNameRequired() {
    return m.validation_organisation_confirm_name_required();
  },
  get confirmNameMismatch() {
    return m.validation_organisation_confirm_name_mismatch();
  },
};

/** A KRA PIN as people type it: spaces and case do not matter ("p051 234 567x" is P051234567X). */
export const normaliseKraPin = (value: string) => value.replace(/\s+/g, "").toUpperCase();

/** The typed name matches the organisation's: spaces at the ends, runs of spaces and case do not matter. */
export function sameOrganisationName(typed: string, name: string) {
  const plain = (v: string) => v.replace(/\s+/g, " ").trim().toLocaleLowerCase("en");
  return plain(typed) === plain(name);
}
