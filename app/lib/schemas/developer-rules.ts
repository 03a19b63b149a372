// The limits and words of the developer forms, without zod: pages import them from here and load the
// schemas (developer.ts) only when a form is used (decision 061).

export const WEBHOOK_MESSAGES = {
  urlRequired: "Enter the webhook URL.",
  urlInvalid: "Enter a full URL, such as https://example.co.ke/jumbe/webhooks.",
  urlTooLong: "The webhook URL must be at most 2,048 characters.",
  eventsRequired: "Choose at least one event.",
  eventUnknown: "Unknown webhook event.",
} as const;
