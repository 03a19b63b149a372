/**
 * SMS through Africa's Talking (issue 77, decision 148): the organisation's connection (Settings →
 * SMS), AT's callbacks (delivery reports, incoming SMS, opt-outs) and sending from the inbox.
 */
export {
  removeSmsConnection,
  saveSmsConnection,
  smsCallbackUrls,
  smsConnectionOf,
  smsConnectionView,
  smsStatusInWords,
  testSmsConnection,
} from "./connection";
export type { SmsActor, SmsConnectionView, SmsTestResult } from "./connection";
export { receiveIncomingSms, receiveSmsDeliveryReport, receiveSmsOptOut } from "./receivers";
export type { CallbackAnswer } from "./receivers";
export {
  deliverQueuedSms,
  deliverQueuedSmsBatch,
  queueInboxSms,
  settleUnknownSms,
  SMS_SEND_QUEUE,
  SMS_SETTLE_QUEUE,
  SMS_UNKNOWN_AFTER_MS,
} from "./send";
export { registerSmsJobs } from "./jobs";
export { forgetReportNumbers } from "./erasure";
export { inSmsQuietHours } from "./quiet-hours";
export { SMS_ONLY_NUMBER, smsOnlyOf } from "~/lib/sms-only";
export { apiSmsById, queueApiSms } from "./api";
export type { ApiSms } from "./api";
export {
  campaignFallbackSummary,
  fallbackOnStatusChanges,
  runFallback,
  runFallbacks,
  sweepFallbacks,
  UNDELIVERABLE_CODES,
} from "./fallback";
export { armAutomationFallback, automationFallbacksOf, saveAutomationFallback } from "./automation-fallback";
export type { AutomationFallbackInput, AutomationFallbackSetting } from "./automation-fallback";
