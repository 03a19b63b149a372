import type { SendRefusalCode } from "../messaging/refusals";

/**
 * Why Jumbe will not create or change a campaign: a stable code for programs and a plain sentence
 * for people. The template's own checks answer the sending engine's codes (template_not_approved...).
 */
export class CampaignRefusal extends Error {
  constructor(
    readonly status: 400 | 402 | 403 | 404 | 409 | 422,
    readonly code: CampaignRefusalCode,
    message: string,
    /** The form field it is about, when one is. */
    readonly field?: string,
  ) {
    super(message);
    this.name = "CampaignRefusal";
  }
}

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

export const refuseCampaign = (status: CampaignRefusal["status"], code: CampaignRefusalCode, message: string, field?: string) =>
  new CampaignRefusal(status, code, message, field);

export const campaignNotFound = () => refuseCampaign(404, "campaign_not_found", "No such campaign.");
