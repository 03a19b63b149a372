/**
 * Click-to-WhatsApp ads (issue 77, decision 154): the ad a customer came from (its referral, on the
 * conversation and the contact) and Meta's free entry window that an answer to it opens.
 */
export { recordAdReferrals, referralOf } from "./referrals";
export type { AdArrival, AdReferral } from "./referrals";
export { FREE_ENTRY_HOURS, FREE_ENTRY_REPLY_HOURS, settleFreeEntry } from "./free-entry";
// Conversions sent back to Meta (decision 156): consent and datasets, the outbox, its sender, the inbox's lines.
export { conversionSettings, setConversionConsent } from "./conversions/consent";
export type { ConversionActor, ConversionSettingsView } from "./conversions/consent";
export {
  conversionOnFlowEnd,
  conversionOnRequestClosed,
  leadKey,
  markConverted,
  queueConversion,
  CONVERSIONS_SEND_QUEUE,
} from "./conversions/record";
// Conversions from a tag (a trigger on contacts, migration 0081) and from a flow's end (decision 158).
export { setLeadTags } from "./conversions/lead-tags";
export { sendDueConversions } from "./conversions/send";
export { registerConversionJobs } from "./conversions/jobs";
export { conversionsOfConversation } from "./conversions/views";
export type { ConversationConversions, ConversionLine } from "./conversions/views";
export { AD_PICTURE_ATTEMPTS, AD_PICTURE_QUEUE, adPictureFile, runAdPictureJobs } from "./picture";
export type { AdPictureFile } from "./picture";
