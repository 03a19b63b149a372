// The limits and words of the team forms, without zod: pages import them from here and load the
// schemas (team.ts) only when a form is used (decision 061).

export const TEAM_FORM_MESSAGES = {
  roleRequired: "Choose a role",
  firstNameRequired: "First name is required",
  lastNameRequired: "Last name is required",
  passwordRequired: "Your password is required",
} as const;

/** Each organisation role in words. */
export const ROLE_WORDS = { owner: "Owner", admin: "Admin", agent: "Agent", viewer: "Viewer" } as const;

/** The roles an invitation or a role change can give (the owner's comes only with the ownership). */
export const INVITE_ROLES = ["admin", "agent", "viewer"] as const;

export const ROLE_SUMMARIES: Record<(typeof INVITE_ROLES)[number], string> = {
  admin: "Admin: everything but the ownership",
  agent: "Agent: inbox, contacts and campaigns; no keys, setup or team changes",
  viewer: "Viewer: sees everything, changes nothing",
};
