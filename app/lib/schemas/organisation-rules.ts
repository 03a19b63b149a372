// The limits and words of the organisation forms, without zod: pages import them from here and load the
// schemas (organisation.ts) only when a form is used (decision 061).

export const ORGANISATION_NAME_MAX = 120;

/** Days between closing the organisation and the erasure of its data; it can be reopened until then (decision 032). */
export const GRACE_DAYS = 30;

export const POSTAL_ADDRESS_MAX = 160;

/** KRA's PIN: a letter (P for companies and organisations, A for people), 9 digits, a letter. The database checks it too. */
export const KRA_PIN_PATTERN = /^[A-Z][0-9]{9}[A-Z]$/;

export const ORGANISATION_MESSAGES = {
  nameRequired: "Organisation name is required",
  nameMax: `Keep the organisation name to ${ORGANISATION_NAME_MAX} characters`,
  kraPin: "Enter the KRA PIN as a letter, 9 digits and a letter, like P051234567X.",
  postalAddressMax: `Keep the postal address to ${POSTAL_ADDRESS_MAX} characters`,
  county: "Choose a county from the list",
  industry: "Choose an industry from the list",
  timeZone: "Choose a time zone from the list",
  passwordRequired: "Your password is required",
  confirmNameRequired: "Type the organisation's name to confirm",
  confirmNameMismatch: "This is not the organisation's name. Type it exactly as shown.",
} as const;

/** A KRA PIN as people type it: spaces and case do not matter ("p051 234 567x" is P051234567X). */
export const normaliseKraPin = (value: string) => value.replace(/\s+/g, "").toUpperCase();

/** The typed name matches the organisation's: spaces at the ends, runs of spaces and case do not matter. */
export function sameOrganisationName(typed: string, name: string) {
  const plain = (v: string) => v.replace(/\s+/g, " ").trim().toLocaleLowerCase("en");
  return plain(typed) === plain(name);
}
