import type { AccountInput } from "./state";

/**
 * The demo Africa's Talking application of sandbox mode (issue 77): what an organisation's SMS
 * settings would hold. A username other than "sandbox" on purpose: the official client switches
 * every client in the process to AT's own sandbox for that name (decision 145).
 */
export const DEMO_SMS_USERNAME = "jumbe-demo";
export const DEMO_SMS_API_KEY = "atsk_jumbe_sandbox_demo_0000000000000000";
export const DEMO_SMS_SENDER_ID = "JUMBE";
export const DEMO_SMS_SHORTCODE = "40404";

export const demoSmsAccount = (): AccountInput => ({
  username: DEMO_SMS_USERNAME,
  apiKey: DEMO_SMS_API_KEY,
  senderIds: [DEMO_SMS_SENDER_ID],
  shortcodes: [DEMO_SMS_SHORTCODE],
  balanceKes: 1000,
});
