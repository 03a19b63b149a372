import { Refusal } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";
/**
 * Why a change to the team is refused: a stable code for programs, a plain sentence for people, and
 * the form field it is about when there is one. Nothing has changed when one is thrown.
 */
export type TeamRefusalStatus = 400 | 403 | 404 | 409 | 410 | 429;

export type TeamRefusalCode =
  | "forbidden"
  | "member_not_found"
  | "invitation_not_found"
  | "invitation_closed"
  | "invitation_expired"
  | "already_member"
  | "account_exists"
  | "owner_fixed"
  | "not_yourself"
  | "wrong_password"
  | "rate_limited"
  | "invalid_threshold";

export const refuseTeam = (status: TeamRefusalStatus, code: TeamRefusalCode, message: string, field?: string) =>
  new Refusal({ domain: "team", status, code, message, field });

/** The sentences, each read when used (in the request's language). */
export const TEAM_MESSAGES = {
  get forbidden() {
    return m.settings_team_refusal_forbidden();
  },
  get ownerOnly() {
    return m.settings_team_refusal_owner_only();
  },
  get approvalOwnerOnly() {
    return m.settings_team_refusal_approval_owner_only();
  },
  get memberNotFound() {
    return m.settings_team_refusal_member_not_found();
  },
  get invitationNotFound() {
    return m.settings_team_refusal_invitation_not_found();
  },
  get invitationClosed() {
    return m.settings_team_refusal_invitation_closed();
  },
  get invitationExpired() {
    return m.settings_team_refusal_invitation_expired();
  },
  get alreadyMember() {
    return m.settings_team_refusal_already_member();
  },
  get accountExists() {
    return m.settings_team_refusal_account_exists();
  },
  get ownerFixed() {
    return m.settings_team_refusal_owner_fixed();
  },
  get ownerStays() {
    return m.settings_team_refusal_owner_stays();
  },
  get notYourself() {
    return m.settings_team_refusal_not_yourself();
  },
  get wrongPassword() {
    return m.settings_refusal_wrong_password();
  },
};
