import * as z from "zod/mini";
import { m } from "~/paraglide/messages";
import { SMS_MAX_LENGTH } from "~/lib/sms-price";
import { FALLBACK_MODES, SMS_FALLBACK_AUTOMATIONS } from "~/lib/sms-fallback";

/** Africa's Talking usernames: letters, digits, dots, dashes and underscores (the client checks the same). */
export const SMS_USERNAME_PATTERN = /^[\w.-]{1,100}$/;
/** An alphanumeric sender ID (up to 11 characters) or a shortcode (digits). */
export const SMS_SENDER_PATTERN = /^[A-Za-z0-9 ]{1,11}$|^\d{3,8}$/;
export { SMS_KEY_MAX } from "~/lib/sms-limits";
import { SMS_KEY_MAX } from "~/lib/sms-limits";

/** Settings → SMS: the connection (an empty API key keeps the stored one). */
export const SaveSmsSchema = z.object({
  username: z
    .string({ error: () => m.sms_validation_username() })
    .check(z.trim(), z.regex(SMS_USERNAME_PATTERN, { error: () => m.sms_validation_username() })),
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

/** "Send as SMS" (/chat/<id>/sms): the text, to price (estimate) or send. */
export const SendSmsSchema = z.object({
  body: z
    .string({ error: () => m.sms_send_refusal_empty() })
    .check(
      z.trim(),
      z.minLength(1, { error: () => m.sms_send_refusal_empty(), abort: true }),
      z.maxLength(SMS_MAX_LENGTH, { error: () => m.sms_send_refusal_too_long({ max: SMS_MAX_LENGTH }) }),
    ),
});

/**
 * Settings → SMS, an automation's fallback (decision 159): which automation, and the campaign form's
 * own fields (`sms_fallback` off/own/message, `sms_text`, `sms_after`); the domain checks the bounds.
 */
export const AutomationFallbackSchema = z.object({
  automation: z.enum(SMS_FALLBACK_AUTOMATIONS, { error: () => m.sms_auto_fallback_unknown() }),
  sms_fallback: z.catch(z.enum(FALLBACK_MODES), "off"),
  sms_text: z.optional(z.string().check(z.maxLength(2000))),
  sms_after: z.optional(z.string().check(z.trim(), z.maxLength(6))),
});
export type AutomationFallbackFields = z.output<typeof AutomationFallbackSchema>;
