import * as z from "zod/mini";
import { PASSWORD_MAX } from "./auth";

import { COUNTIES, INDUSTRY_KEYS } from "~/lib/kenya";

import { isTimeZone } from "~/lib/time-zones";

import { withoutBidiControls } from "~/lib/names";

import { ORGANISATION_NAME_MAX, POSTAL_ADDRESS_MAX, KRA_PIN_PATTERN, ORGANISATION_MESSAGES, normaliseKraPin } from "./organisation-rules";
export {
  ORGANISATION_NAME_MAX,
  GRACE_DAYS,
  POSTAL_ADDRESS_MAX,
  KRA_PIN_PATTERN,
  ORGANISATION_MESSAGES,
  normaliseKraPin,
  sameOrganisationName,
} from "./organisation-rules";

const inList = (list: readonly string[], error: () => string) => z.optional(z.string().check(z.refine((v) => list.includes(v), { error })));

/** The organisation's details: its name, and what invoices carry. Empty optional fields are cleared. */
export const OrganisationDetailsSchema = z.object({
  name: z.string({ error: () => ORGANISATION_MESSAGES.nameRequired }).check(
    z.overwrite((v) => withoutBidiControls(v).replace(/\s+/g, " ").trim()),
    z.minLength(1, { error: () => ORGANISATION_MESSAGES.nameRequired, abort: true }),
    z.maxLength(ORGANISATION_NAME_MAX, { error: () => ORGANISATION_MESSAGES.nameMax }),
  ),
  kraPin: z.optional(
    z.string().check(z.overwrite(normaliseKraPin), z.regex(KRA_PIN_PATTERN, { error: () => ORGANISATION_MESSAGES.kraPin })),
  ),
  postalAddress: z.optional(
    z.string().check(
      z.overwrite((v) => v.replace(/\s+/g, " ").trim()),
      z.maxLength(POSTAL_ADDRESS_MAX, { error: () => ORGANISATION_MESSAGES.postalAddressMax }),
    ),
  ),
  county: inList(COUNTIES, () => ORGANISATION_MESSAGES.county),
  industry: inList(INDUSTRY_KEYS, () => ORGANISATION_MESSAGES.industry),
  timeZone: z
    .string({ error: () => ORGANISATION_MESSAGES.timeZone })
    .check(
      z.maxLength(64, { error: () => ORGANISATION_MESSAGES.timeZone }),
      z.refine(isTimeZone, { error: () => ORGANISATION_MESSAGES.timeZone }),
    ),
  // The language of members' e-mails until each chooses one (issue 43); left as it was when not sent.
  defaultLocale: z.optional(z.enum(["en", "sw", "fr"], { error: () => ORGANISATION_MESSAGES.language })),
});
export type OrganisationDetailsInput = z.output<typeof OrganisationDetailsSchema>;

const password = z
  .string({ error: () => ORGANISATION_MESSAGES.passwordRequired })
  .check(z.minLength(1, { error: () => ORGANISATION_MESSAGES.passwordRequired, abort: true }), z.maxLength(PASSWORD_MAX));

/** Close the organisation: the owner's password, and its name typed out. */
export const CloseOrganisationSchema = z.object({
  password,
  confirmName: z
    .string({ error: () => ORGANISATION_MESSAGES.confirmNameRequired })
    .check(z.minLength(1, { error: () => ORGANISATION_MESSAGES.confirmNameRequired, abort: true }), z.maxLength(ORGANISATION_NAME_MAX * 2)),
});

/** Reopen it within the grace period: the owner's password. */
export const ReopenOrganisationSchema = z.object({ password });
