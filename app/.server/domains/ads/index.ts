/**
 * Click-to-WhatsApp ads (issue 77, decision 154): the ad a customer came from (its referral, on the
 * conversation and the contact) and Meta's free entry window that an answer to it opens.
 */
export { recordAdReferrals, referralOf } from "./referrals";
export type { AdArrival, AdReferral } from "./referrals";
export { FREE_ENTRY_HOURS, FREE_ENTRY_REPLY_HOURS, settleFreeEntry } from "./free-entry";
export { AD_PICTURE_ATTEMPTS, AD_PICTURE_QUEUE, adPictureFile, runAdPictureJobs } from "./picture";
export type { AdPictureFile } from "./picture";
