// The limits and words of the contacts forms, without zod: pages import them from here and load the
// schemas (contacts.ts) only when a form is used (decision 061).
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

export const CONTACT_NAME_MAX = 120;

export const CONSENT_EVIDENCE_MAX = 2000;

/** The longest segment name; the server's limit (app/.server/domains/contacts/segments.ts) is the same. */
export const SEGMENT_NAME_MAX = 80;

// Getters: each text is read in the language of the request (or page) that reports it, never at load.
export const CONTACT_MESSAGES = {
  get nameRequired() {
    return m.validation_contact_name_required();
  },
  get nameTooLong() {
    return m.validation_contact_name_too_long({ max: formatNumber(CONTACT_NAME_MAX) });
  },
  get phoneRequired() {
    return m.validation_contact_phone_required();
  },
  get phoneTooLong() {
    return m.validation_contact_phone_too_long();
  },
  get evidenceRequired() {
    return m.validation_contact_evidence_required();
  },
  get evidenceTooLong() {
    return m.validation_consent_evidence_too_long({ max: formatNumber(CONSENT_EVIDENCE_MAX) });
  },
  get consentStatus() {
    return m.validation_consent_status();
  },
  get consentSource() {
    return m.validation_consent_source();
  },
  get tagRequired() {
    return m.validation_contact_tag_required();
  },
  get segmentName() {
    return m.validation_segment_name({ max: formatNumber(SEGMENT_NAME_MAX) });
  },
};

/** Tags typed as "vip, nairobi": split on commas. */
export const splitTags = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
