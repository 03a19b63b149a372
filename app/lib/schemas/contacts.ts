// Shared with the browser for inline checks; the server checks again (fields.ts) and answers the same way.
import * as z from "zod/mini";
import { withoutBidiControls } from "~/lib/names";

import { CONSENT_EVIDENCE_MAX, CONTACT_MESSAGES, CONTACT_NAME_MAX } from "./contacts-rules";
export { CONTACT_MESSAGES, splitTags } from "./contacts-rules";

const name = z.string({ error: () => CONTACT_MESSAGES.nameRequired }).check(
  // Bidirectional controls (app/lib/names.ts) go: a name of nothing else is no name.
  z.overwrite(withoutBidiControls),
  z.trim(),
  z.minLength(1, { error: () => CONTACT_MESSAGES.nameRequired, abort: true }),
  z.maxLength(CONTACT_NAME_MAX, { error: () => CONTACT_MESSAGES.nameTooLong }),
);
const phone = z
  .string({ error: () => CONTACT_MESSAGES.phoneRequired })
  .check(
    z.trim(),
    z.minLength(1, { error: () => CONTACT_MESSAGES.phoneRequired, abort: true }),
    z.maxLength(32, { error: () => CONTACT_MESSAGES.phoneTooLong }),
  );
const optionalText = (max: number) => z.optional(z.string().check(z.trim(), z.maxLength(max)));

/** The Contacts tab's "Add contact": consent yes or no needs evidence; left out, none is recorded. */
export const AddContactSchema = z
  .object({
    name,
    phone,
    tags: optionalText(2000),
    consent: z.optional(z.enum(["yes", "no"])),
    evidence: optionalText(2000),
  })
  .check(
    z.superRefine((value, ctx) => {
      if (value.consent && !value.evidence)
        ctx.addIssue({ code: "custom", path: ["evidence"], message: CONTACT_MESSAGES.evidenceRequired });
    }),
  );

/** The contact page's edit form; custom attributes come as `attr.<key>` and are checked on the server. */
export const EditContactSchema = z.object({
  name,
  phone,
  tags: optionalText(2000),
  language: z.optional(z.enum(["en", "sw"])),
  notes: optionalText(4000),
});

/** Recording consent by hand on the contact page. */
export const ConsentSchema = z.object({
  status: z.enum(["opted_in", "opted_out"], { error: () => CONTACT_MESSAGES.consentStatus }),
  source: z.enum(["form", "manual", "import", "api", "keyword", "meta"], {
    error: () => CONTACT_MESSAGES.consentSource,
  }),
  evidence: z
    .string({ error: () => CONTACT_MESSAGES.evidenceRequired })
    .check(
      z.trim(),
      z.minLength(1, { error: () => CONTACT_MESSAGES.evidenceRequired, abort: true }),
      z.maxLength(CONSENT_EVIDENCE_MAX, { error: () => CONTACT_MESSAGES.evidenceTooLong }),
    ),
});
