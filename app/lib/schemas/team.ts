import * as z from "zod/mini";
import { emailField, MESSAGES, PASSWORD_MAX, PASSWORD_MIN } from "./auth";

import { withoutBidiControls } from "~/lib/names";

import { TEAM_FORM_MESSAGES, INVITE_ROLES } from "./team-rules";
export { TEAM_FORM_MESSAGES, ROLE_WORDS, INVITE_ROLES, ROLE_SUMMARIES } from "./team-rules";

const role = z.enum(INVITE_ROLES, { error: () => TEAM_FORM_MESSAGES.roleRequired });

/** Invite a member: their e-mail and role. */
export const InviteSchema = z.object({ email: emailField, role });

/** Change a member's role. */
export const RoleChangeSchema = z.object({ role });

/** A person's name: bidirectional controls dropped (app/lib/names.ts); one of nothing else is missing. */
const name = (message: () => string) =>
  z
    .string({ error: message })
    .check(z.overwrite(withoutBidiControls), z.trim(), z.minLength(1, { error: message, abort: true }), z.maxLength(80));

/** Accept an invitation: the new member's name and password. */
export const AcceptInvitationSchema = z
  .object({
    firstName: name(() => TEAM_FORM_MESSAGES.firstNameRequired),
    lastName: name(() => TEAM_FORM_MESSAGES.lastNameRequired),
    newPassword: z.optional(z.string().check(z.maxLength(PASSWORD_MAX))),
    confirmPassword: z.optional(z.string().check(z.maxLength(PASSWORD_MAX))),
  })
  .check(
    z.superRefine((value, ctx) => {
      if (!value.newPassword) ctx.addIssue({ code: "custom", path: ["newPassword"], message: MESSAGES.newRequired });
      else if (value.newPassword.length < PASSWORD_MIN) ctx.addIssue({ code: "custom", path: ["newPassword"], message: MESSAGES.newMin });
      if (!value.confirmPassword) ctx.addIssue({ code: "custom", path: ["confirmPassword"], message: MESSAGES.confirmRequired });
      else if (value.newPassword && value.confirmPassword !== value.newPassword)
        ctx.addIssue({ code: "custom", path: ["confirmPassword"], message: MESSAGES.passwordsMismatch });
    }),
  );

/** Hand over the ownership: the owner's password confirms it. */
export const HandoverSchema = z.object({
  password: z
    .string({ error: () => TEAM_FORM_MESSAGES.passwordRequired })
    .check(z.minLength(1, { error: () => TEAM_FORM_MESSAGES.passwordRequired, abort: true }), z.maxLength(PASSWORD_MAX)),
});
