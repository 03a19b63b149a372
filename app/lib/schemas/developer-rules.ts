// The limits and words of the developer forms, without zod: pages import them from here and load the
// schemas (developer.ts) only when a form is used (decision 061).
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

export const WEBHOOK_URL_MAX = 2048;

// Getters: each text is read in the language of the request (or page) that reports it, never at load.
export const WEBHOOK_MESSAGES = {
  get urlRequired() {
    return m.validation_webhook_url_required();
  },
  get urlInvalid() {
    return m.validation_webhook_url_invalid();
  },
  get urlTooLong() {
    return m.validation_webhook_url_too_long({ max: formatNumber(WEBHOOK_URL_MAX) });
  },
  get eventsRequired() {
    return m.validation_webhook_events_required();
  },
  get eventUnknown() {
    return m.validation_webhook_event_unknown();
  },
};
