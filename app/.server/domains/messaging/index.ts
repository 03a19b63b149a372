/**
 * The messaging domain's public entry: what other domains may use of it. A domain imports another only
 * through its index.ts (tests/architecture/layers.test.ts); routes and adapters may reach further.
 */
export { LATE_FAILURES_DELAY_S, LATE_FAILURES_QUEUE } from "./campaign-figures";
export { prepareTemplate, valueButtons } from "./compose";
export type { PreparedTemplate, ValueButton } from "./compose";
export { isFreeForm, summaryOf } from "./content";
export type { InteractiveProducts, MediaKind, MediaRef, OutboundContent, TemplateProducts } from "./content";
export { TEMPLATE_PRODUCTS_MAX, TEMPLATE_SECTIONS_MAX, SECTION_TITLE_MAX } from "./template-products";
export {
  INBOX_CHANNEL,
  INBOX_EVENT_RETENTION_HOURS,
  eventsKeptSince,
  eventsSince,
  latestEventId,
  logConversationEvents,
  logMessageEvents,
} from "./conversation-events";
export type { LoggedEvent } from "./conversation-events";
export { conversationLockKey, lockConversations, lockKeys } from "./conversation-lock";
export { wakeDispatcher } from "./dispatcher";
export { failMessagesIn } from "./failures";
export { PLACEHOLDER_PREFIX } from "./media";
export { discardUploadedMedia, isUuid, storeUploadedMedia } from "./media-files";
export type { MediaFileView } from "./media-files";
export { MEDIA_TYPES, STATIC_STICKER_MAX_BYTES, formatLimit, mediaKindOf } from "./media-types";
export { releaseMessagingLimitHolds } from "./messaging-limit";
export { IDEMPOTENCY_HOURS, queueMessage } from "./queue";
export { composeReplies, insertReplies, isBatchable } from "./queue-replies";
export type { ComposedReply } from "./queue-replies";
export { markInboundRead } from "./read-receipts";
export { normaliseRecipient } from "./recipient";
export type { SendRefusalCode } from "./refusals";
export { SERVICE_WINDOW_MS, refuseWhileClosing, resolveSenderNumber } from "./sender";
export type { SenderNumber } from "./sender";
export { releaseHeldMessages } from "./token-refusal";
export { onMessageStatusChanges } from "./status-reactions";
export type { StatusChange } from "./statuses";
