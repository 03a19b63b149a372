import { data, Form, href, redirect } from "react-router";
import { getFormProps } from "~/components/ui/form-state";
import type { Route } from "./+types/invitation";
import { AcceptInvitationSchema } from "~/lib/schemas/team";
import { ROLE_WORDS } from "~/lib/schemas/team-rules";
import { staffRoleWords } from "~/lib/staff";
import { AuthShell } from "~/components/layout/auth-shell";
import { FormError } from "~/components/ui/field";
import { Button } from "~/components/ui/button";
import { PersonNameFields } from "~/components/ui/person-name-fields";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { NewPasswordFields } from "~/components/ui/new-password-fields";
import { AuthErrorBoundary } from "~/components/layout/auth-error";
import { acceptInvitation, invitationByToken, type InvitationState } from "~/.server/domains/team/invitations";
import { createSession, deleteSessionByToken, sessionToken } from "~/.server/domains/auth/sessions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { publicFormAction } from "~/.server/infrastructure/http/intents";
import { toastCookie } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import { TextLink } from "~/components/ui/text-link";
import { documentPage, loadAsDocument } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyAcceptInvitationSchema = lazySchema(() => import("~/lib/schemas/team"), "AcceptInvitationSchema");

// Plain HTML in the browser, no React (decision 060).
export const handle = documentPage;
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.auth_invitation_meta_title() }, { name: "robots", content: "noindex" }];

/** Why a link cannot be used, in the request's language. */
const closedWords = (): Record<Exclude<InvitationState, "open">, { title: string; text: string; status: number }> => ({
  expired: { title: m.auth_invitation_expired_title(), text: m.auth_invitation_expired_text(), status: 410 },
  accepted: { title: m.auth_invitation_used_title(), text: m.auth_invitation_used_text(), status: 410 },
  revoked: { title: m.auth_invitation_revoked_title(), text: m.auth_invitation_revoked_text(), status: 410 },
});

/** What the link opens: the form to join, or why it cannot be used (answered with 404 or 410). */
export async function loader({ params }: Route.LoaderArgs) {
  const invitation = await invitationByToken(params.token);
  if (!invitation)
    return data(
      { closed: { title: m.auth_invitation_missing_title(), text: m.auth_invitation_missing_text() }, invitation: null },
      { status: 404 },
    );
  if (invitation.state !== "open") {
    const closed = closedWords()[invitation.state];
    return data({ closed: { title: closed.title, text: closed.text }, invitation: null }, { status: closed.status });
  }
  return {
    closed: null,
    invitation: {
      email: invitation.email,
      organization: invitation.organization,
      role: invitation.platformRole ? staffRoleWords(invitation.platformRole) : ROLE_WORDS[invitation.role],
    },
  };
}

const hide = ["newPassword", "confirmPassword"];

export async function action(args: Route.ActionArgs) {
  const { request, context, params } = args;
  return publicFormAction(args, {
    schema: AcceptInvitationSchema,
    reply: { hideFields: hide },
    handle: async ({ value, submission }) => {
      const meta = requestMeta(request, context);
      let joined;
      try {
        joined = await acceptInvitation(
          params.token,
          { firstName: value.firstName, lastName: value.lastName, password: value.newPassword! },
          meta,
        );
      } catch (error) {
        return refusalReply(submission, refusalOf(error), { field: null, hideFields: hide, toast: true });
      }
      // Signed in as the new member: a session this browser had before ends, as at sign-in.
      const previous = sessionToken(request);
      if (previous) await deleteSessionByToken(previous);
      const session = await createSession(joined.userId, false, meta);
      const headers = new Headers();
      headers.append("Set-Cookie", session.setCookie);
      headers.append("Set-Cookie", await toastCookie("success", m.auth_invitation_welcome()));
      // Console staff go to the console (which first asks them to set up two-factor sign-in).
      throw redirect(joined.staff ? href("/admin") : href("/dashboard"), { headers });
    },
  });
}

export default function Invitation({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(lazyAcceptInvitationSchema, actionData?.result, { shouldValidate: "onBlur" });
  if (loaderData.closed) {
    return (
      <AuthShell title={loaderData.closed.title} subtitle={loaderData.closed.text}>
        <p className="text-center text-sm">
          <TextLink to={href("/login")} weight="semibold" underline="hover">
            {m.auth_sign_in_link()}
          </TextLink>
        </p>
      </AuthShell>
    );
  }
  const { invitation } = loaderData;
  return (
    <AuthShell
      title={m.auth_invitation_title({ organization: invitation.organization })}
      subtitle={
        <>
          {m.auth_invitation_invited_as()} <strong className="text-slate-900">{invitation.role}</strong>
          {m.auth_invitation_choose_for()} <strong className="text-slate-900">{invitation.email}</strong>
          {m.auth_invitation_choose_after()}
        </>
      }
    >
      <Form method="post" {...getFormProps(form)}>
        <FormError id={form.errorId} errors={form.errors} />
        <PersonNameFields firstName={fields.firstName} lastName={fields.lastName} />
        <NewPasswordFields
          newPassword={fields.newPassword}
          confirmPassword={fields.confirmPassword}
          confirmLabel={m.auth_confirm_password_label()}
        />
        <Button type="submit" className="mt-2 w-full" data-pending-text={m.auth_invitation_pending()}>
          {m.auth_invitation_submit()}
        </Button>
      </Form>
    </AuthShell>
  );
}

// A link that leads nowhere says so in words, inside the sign-in layout.
export function ErrorBoundary() {
  return <AuthErrorBoundary />;
}
