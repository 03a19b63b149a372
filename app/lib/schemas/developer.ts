import * as z from "zod/mini";
import { WEBHOOK_EVENTS } from "../developer";
import { WEBHOOK_MESSAGES, WEBHOOK_URL_MAX } from "./developer-rules";
export { WEBHOOK_MESSAGES, WEBHOOK_URL_MAX } from "./developer-rules";

function isAbsoluteHttpUrl(value: string) {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/**
 * The Developers page's webhook form, checked the same way in the browser and on the server. What
 * only the server can check (https in production, the host resolving to a public address) comes
 * back as the URL field's error.
 */
export const WebhookSchema = z.object({
  url: z
    .string({ error: () => WEBHOOK_MESSAGES.urlRequired })
    .check(
      z.trim(),
      z.minLength(1, { error: () => WEBHOOK_MESSAGES.urlRequired, abort: true }),
      z.maxLength(WEBHOOK_URL_MAX, { error: () => WEBHOOK_MESSAGES.urlTooLong, abort: true }),
      z.refine(isAbsoluteHttpUrl, { error: () => WEBHOOK_MESSAGES.urlInvalid }),
    ),
  events: z
    .array(z.enum(WEBHOOK_EVENTS, { error: () => WEBHOOK_MESSAGES.eventUnknown }), { error: () => WEBHOOK_MESSAGES.eventsRequired })
    .check(z.minLength(1, { error: () => WEBHOOK_MESSAGES.eventsRequired })),
});
