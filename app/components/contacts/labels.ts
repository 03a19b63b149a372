import { m } from "~/paraglide/messages";

/** A contact's consent state in words, in the request's language. */
export const optInLabels = () =>
  ({
    opted_in: m.messaging_optin_opted_in(),
    opted_out: m.messaging_optin_opted_out(),
    unknown: m.messaging_optin_unknown(),
  }) as const;

/** Where a consent record came from, in words. */
export const sourceLabels = () =>
  ({
    form: m.messaging_consent_source_form(),
    manual: m.messaging_consent_source_manual(),
    import: m.messaging_consent_source_import(),
    api: m.messaging_consent_source_api(),
    keyword: m.messaging_consent_source_keyword(),
    meta: m.messaging_consent_source_meta(),
  }) as const;
