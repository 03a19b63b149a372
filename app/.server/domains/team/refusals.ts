import { Refusal } from "../../infrastructure/refusal";
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

export const TEAM_MESSAGES = {
  forbidden: "Only the organisation's owner and admins can change the team.",
  ownerOnly: "Only the owner can hand over the ownership.",
  approvalOwnerOnly: "Only the owner can turn broadcast approval on or off, or change its threshold.",
  memberNotFound: "No such member.",
  invitationNotFound: "No such invitation.",
  invitationClosed: "This invitation has already been used or was withdrawn.",
  invitationExpired: "This invitation has expired. Ask for a new one.",
  alreadyMember: "This person is already a member of your organisation.",
  accountExists:
    "This e-mail address already has a Jumbe account, and an account belongs to one organisation. Invite another address for them.",
  ownerFixed: "The owner's role changes only when the ownership is handed over.",
  ownerStays: "The owner cannot be removed. Hand over the ownership first.",
  notYourself: "You cannot change your own role or remove yourself.",
  wrongPassword: "The password is not correct.",
} as const;
