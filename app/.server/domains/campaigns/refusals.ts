import type { SendRefusalCode } from "../messaging";
import { Refusal, type RefusalStatus } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";

/**
 * Why Jumbe will not create or change a campaign: a stable code for programs and a plain sentence
 * for people. The template's own checks answer the sending engine's codes (template_not_approved...).
 */
/** A campaign's own refusals answer 400, 402, 403, 404, 409 or 422; the sending engine's pass through with theirs. */
export type CampaignRefusalStatus = RefusalStatus;

export type CampaignRefusalCode =
  | SendRefusalCode
  | "campaign_not_found"
  | "invalid_campaign"
  | "invalid_audience"
  | "empty_audience"
  | "invalid_parameters"
  | "invalid_schedule"
  | "campaign_state"
  | "approval_forbidden"
  | "own_campaign"
  | "key_holder"
  | "invalid_reason";

export const refuseCampaign = (status: CampaignRefusalStatus, code: CampaignRefusalCode, message: string, field?: string) =>
  new Refusal({ domain: "campaign", status, code, message, field });

/** The sending engine's refusal as the campaign's: its status, code and sentence, at `field`. */
export const campaignRefusalOfSend = (refusal: Refusal, field?: string) =>
  refuseCampaign(refusal.status, refusal.code as SendRefusalCode, refusal.message, field);

export const campaignNotFound = () => refuseCampaign(404, "campaign_not_found", m.messaging_campaign_no_such());
