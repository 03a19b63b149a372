import * as z from "zod/mini";
import { m } from "~/paraglide/messages";

/** Africa's Talking usernames: letters, digits, dots, dashes and underscores (the client checks the same). */
export const SMS_USERNAME_PATTERN = /^[\w.-]{1,100}$/;
/** An alphanumeric sender ID (up to 11 characters) or a shortcode (digits). */
export const SMS_SENDER_PATTERN = /^[A-Za-z0-9 ]{1,11}$|^\d{3,8}$/;
export { SMS_KEY_MAX } from "~/lib/sms-limits";
import { SMS_KEY_MAX } from "~/lib/sms-limits";

/** Settings → SMS: the connection (an empty API key keeps the stored one). */
export const SaveSmsSchema = z.object({
  username: z.string({ error: () => m.sms_validation_username() }).check(
    z.trim(),
    z.regex(SMS_USERNAME_PATTERN, { error: () => m.sms_validation_username() }),
  ),
  apiKey: z.optional(
    z.string().check(
      z.overwrite((v) => v.replace(/\s+/g, "")),
      z.maxLength(SMS_KEY_MAX, { error: () => m.sms_validation_key_max({ max: SMS_KEY_MAX }) }),
      z.regex(/^[\x21-\x7e]*$/, { error: () => m.sms_validation_key_max({ max: SMS_KEY_MAX }) }),
    ),
  ),
  senderId: z.optional(
    z.string().check(z.trim(), z.regex(/^$|^[A-Za-z0-9 ]{1,11}$|^\d{3,8}$/, { error: () => m.sms_validation_sender() })),
  ),
});
export type SaveSmsInput = z.output<typeof SaveSmsSchema>;

/** A button with no field (test connection). */
export const SmsButtonSchema = z.object({});

/** Disconnect, once confirmed. */
export const RemoveSmsSchema = z.object({ confirm: z.catch(z.string(), "") });
