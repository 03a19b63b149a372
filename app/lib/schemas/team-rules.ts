// The limits and words of the team forms, without zod: pages import them from here and load the
// schemas (team.ts) only when a form is used (decision 061).
import { m } from "~/paraglide/messages";

// Getters: each text is read in the language of the request (or page) that reports it, never at load.
export const TEAM_FORM_MESSAGES = {
  get roleRequired() {
    return m.validation_team_role_required();
  },
  get firstNameRequired() {
    return m.validation_first_name_required();
  },
  get lastNameRequired() {
    return m.validation_last_name_required();
  },
  get passwordRequired() {
    return m.validation_your_password_required();
  },
};

/** Each organisation role in words, in the request's language (app/messages/validation). */
export const ROLE_WORDS = {
  get owner() {
    return m.validation_role_owner();
  },
  get admin() {
    return m.validation_role_admin();
  },
  get agent() {
    return m.validation_role_agent();
  },
  get viewer() {
    return m.validation_role_viewer();
  },
};

/** The roles an invitation or a role change can give (the owner's comes only with the ownership). */
export const INVITE_ROLES = ["admin", "agent", "viewer"] as const;

export const ROLE_SUMMARIES: Record<(typeof INVITE_ROLES)[number], string> = {
  get admin() {
    return m.validation_role_summary_admin();
  },
  get agent() {
    return m.validation_role_summary_agent();
  },
  get viewer() {
    return m.validation_role_summary_viewer();
  },
};
