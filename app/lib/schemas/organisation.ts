import * as z from "zod/mini";
import { PASSWORD_MAX } from "./auth";
import { COUNTIES, INDUSTRY_KEYS } from "~/lib/kenya";
import { isTimeZone } from "~/lib/time-zones";
import { withoutBidiControls } from "~/lib/names";

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

const inList = (list: readonly string[], error: string) => z.optional(z.string().check(z.refine((v) => list.includes(v), { error })));

/** The organisation's details: its name, and what invoices carry. Empty optional fields are cleared. */
export const OrganisationDetailsSchema = z.object({
  name: z.string({ error: ORGANISATION_MESSAGES.nameRequired }).check(
    z.overwrite((v) => withoutBidiControls(v).replace(/\s+/g, " ").trim()),
    z.minLength(1, { error: ORGANISATION_MESSAGES.nameRequired, abort: true }),
    z.maxLength(ORGANISATION_NAME_MAX, ORGANISATION_MESSAGES.nameMax),
  ),
  kraPin: z.optional(z.string().check(z.overwrite(normaliseKraPin), z.regex(KRA_PIN_PATTERN, ORGANISATION_MESSAGES.kraPin))),
  postalAddress: z.optional(
    z.string().check(
      z.overwrite((v) => v.replace(/\s+/g, " ").trim()),
      z.maxLength(POSTAL_ADDRESS_MAX, ORGANISATION_MESSAGES.postalAddressMax),
    ),
  ),
  county: inList(COUNTIES, ORGANISATION_MESSAGES.county),
  industry: inList(INDUSTRY_KEYS, ORGANISATION_MESSAGES.industry),
  timeZone: z
    .string({ error: ORGANISATION_MESSAGES.timeZone })
    .check(z.maxLength(64, ORGANISATION_MESSAGES.timeZone), z.refine(isTimeZone, { error: ORGANISATION_MESSAGES.timeZone })),
});
export type OrganisationDetailsInput = z.output<typeof OrganisationDetailsSchema>;

const password = z
  .string({ error: ORGANISATION_MESSAGES.passwordRequired })
  .check(z.minLength(1, { error: ORGANISATION_MESSAGES.passwordRequired, abort: true }), z.maxLength(PASSWORD_MAX));

/** Close the organisation: the owner's password, and its name typed out. */
export const CloseOrganisationSchema = z.object({
  password,
  confirmName: z
    .string({ error: ORGANISATION_MESSAGES.confirmNameRequired })
    .check(z.minLength(1, { error: ORGANISATION_MESSAGES.confirmNameRequired, abort: true }), z.maxLength(ORGANISATION_NAME_MAX * 2)),
});

/** Reopen it within the grace period: the owner's password. */
export const ReopenOrganisationSchema = z.object({ password });

/** The typed name matches the organisation's: spaces at the ends, runs of spaces and case do not matter. */
export function sameOrganisationName(typed: string, name: string) {
  const plain = (v: string) => v.replace(/\s+/g, " ").trim().toLocaleLowerCase("en");
  return plain(typed) === plain(name);
}
