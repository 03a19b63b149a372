/**
 * The notifications domain's public entry: what other domains may use of it. A domain imports another only
 * through its index.ts (tests/architecture/layers.test.ts); routes and adapters may reach further.
 */
export {
  notifyApprovalDecided,
  notifyApprovalRequested,
  notifyCampaignFinished,
  notifyCampaignPaused,
  notifyInvitationAccepted,
  notifyRoleChanged,
  notifyTemplateDecision,
  notifyWebhookFailing,
  retellCampaignFinished,
} from "./emitters";
export { notifyNewDeviceSignIn } from "./new-device";
export { notify } from "./notify";
export { storedWords } from "./stored-words";
export { shellCountsSql } from "./queries";
