/**
 * The auth domain's public entry: what other domains may use of it. A domain imports another only
 * through its index.ts (tests/architecture/layers.test.ts); routes and adapters may reach further.
 */
export { queueCodeMail } from "./code-mail-job";
export { CODE_MESSAGES, consumeCode, deleteStaleCodes, issueCode } from "./codes";
export { actorOf, intent, intentAction } from "./form-actions";
export {
  requireDeclaredResource,
  requireDeclaredUser,
  requirePlatformAdmin,
  requirePlatformStaff,
  requireUserWithPermission,
} from "./guards";
export type { CurrentUser, GuardArgs } from "./guards";
export { ownersToWrite } from "./language";
export { confirmOwnPassword } from "./own-password";
export { hashPassword, verifyPassword } from "./password";
export { can } from "./permissions";
export type { Permission, Role } from "./permissions";
export { mayOpen } from "./route-permissions";
export { deleteExpiredSessions } from "./sessions";
export { newBusinessId } from "./signup";
export { deleteExpiredChallenges } from "./two-factor/challenge";
export { checkSecondFactor } from "./two-factor/second-factor";
export { qrSvg } from "./two-factor/qr";
