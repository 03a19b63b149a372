import { data, Form, href } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/security";
import { mustSetUpTwoFactor, requireDeclaredUser, type CurrentUser } from "~/.server/domains/auth/guards";
import { can } from "~/.server/domains/auth/permissions";
import { listSessions, signOutOtherSessions, signOutSession, type ActiveSession } from "~/.server/domains/auth/session-list";
import {
  cancelTwoFactorSetup,
  confirmTwoFactorSetup,
  renewRecoveryCodes,
  setTwoFactorRequired,
  startTwoFactorSetup,
  turnOffTwoFactor,
  twoFactorStatus,
} from "~/.server/domains/auth/two-factor/enrolment";
import { TWO_FACTOR_MESSAGES } from "~/lib/two-factor-messages";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { postedFirst } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { ConfirmSetupSchema, RenewCodesSchema, TurnOffSchema } from "~/lib/schemas/two-factor";
import { formatWhen } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { SettingsHeader } from "~/components/settings/settings-header";
import { RequireTwoFactorCard, TwoFactorCard } from "~/components/settings/two-factor";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Table, type Column } from "~/components/ui/table";
import { Toast } from "~/components/ui/toast";
import { refusalOf, refusalToast, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

// A settings form: sent as a document without React (decision 066); the server checks every field and app/assets/forms.js holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "account:manage", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.settings_security_meta_title() }];

/** How the signed-in person signs in (two-factor) and where they are signed in: each live session, with a way to end the others. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const enforce = can(current.role, "security:enforce");
  const [sessions, { withoutTwoFactor, ...twoFactor }] = await Promise.all([
    listSessions(current.user.id, current.session.id),
    twoFactorStatus(current.user.id, current.user.email, enforce ? current.organization.id : undefined),
  ]);
  return {
    sessions,
    twoFactor,
    mustSetUp: mustSetUpTwoFactor(current),
    required: current.organization.requireTwoFactor,
    enforce: enforce ? { withoutTwoFactor } : null,
  };
}

// The buttons' fields as posted (a missing one reads "").
const SessionSchema = z.object({ session: postedFirst(Infinity) });
const RequiredSchema = z.object({ required: postedFirst(Infinity) });
const ButtonSchema = z.object({});

export async function action(args: Route.ActionArgs) {
  const meta = requestMeta(args.request, args.context);
  const here = href("/settings/security");
  const ownerOf = (current: CurrentUser) => ({
    userId: current.user.id,
    organizationId: current.organization.id,
    currentSessionId: current.session.id,
  });
  const hidden = (...hideFields: string[]) => ({ reply: { hideFields } });
  return intentAction(args, {
    permission: "account:manage",
    intents: {
      one: intent(SessionSchema, async ({ value, user }) => {
        if (!(await signOutSession(ownerOf(user), value.session, meta))) throw data("No such session.", { status: 404 });
        return redirectWithToast(here, "success", m.settings_security_session_signed_out());
      }),
      others: intent(ButtonSchema, async ({ user }) => {
        const ended = await signOutOtherSessions(ownerOf(user), meta);
        return redirectWithToast(
          here,
          "success",
          ended
            ? byCount(
                ended,
                () => m.settings_security_others_signed_out_one({ count: ended }),
                () => m.settings_security_others_signed_out_other({ count: ended }),
              )
            : m.settings_security_no_other_sessions(),
        );
      }),
      "2fa-start": intent(ButtonSchema, async ({ user }) => {
        await startTwoFactorSetup(user);
        return redirectWithToast(here, "info", m.settings_security_two_factor_started());
      }),
      "2fa-cancel": intent(ButtonSchema, async ({ user }) => {
        await cancelTwoFactorSetup(user);
        return redirectWithToast(here, "info", m.settings_security_two_factor_cancelled());
      }),
      "2fa-confirm": intent(
        ConfirmSetupSchema,
        async ({ value, submission, user, intent: posted }) => {
          const codes = await refusedAtField(submission, posted, () => confirmTwoFactorSetup(user, value.code, meta));
          // The codes are shown in this answer only (no redirect): only their hashes are stored.
          return codes.ok ? { recoveryCodes: codes.value, message: TWO_FACTOR_MESSAGES.turnedOn } : codes.response;
        },
        hidden("code"),
      ),
      "2fa-codes": intent(
        RenewCodesSchema,
        async ({ value, submission, user, intent: posted }) => {
          const codes = await refusedAtField(submission, posted, () => renewRecoveryCodes(user, value.password, meta));
          return codes.ok ? { recoveryCodes: codes.value, message: m.settings_security_codes_renewed() } : codes.response;
        },
        hidden("password"),
      ),
      "2fa-off": intent(
        TurnOffSchema,
        async ({ value, submission, user, intent: posted }) => {
          const off = await refusedAtField(submission, posted, () => turnOffTwoFactor(user, value.password, value.code, meta));
          return off.ok ? redirectWithToast(here, "success", TWO_FACTOR_MESSAGES.turnedOff) : off.response;
        },
        hidden("password", "code"),
      ),
      "2fa-require": intent(RequiredSchema, async ({ value, user }) => {
        const required = value.required === "on";
        await setTwoFactorRequired(user, required, meta);
        return redirectWithToast(
          here,
          "success",
          required ? m.settings_security_two_factor_required_toast() : m.settings_security_two_factor_not_required_toast(),
        );
      }),
    },
    refused: (refusal, posted) => refusalToast(refusal, { intent: posted }),
    unknown: () => {
      throw data(m.settings_unknown_action(), { status: 400 });
    },
  });
}

type Submission = Parameters<typeof refusalReply>[0];

/** Runs a two-factor change; a refusal about a field comes back as that field's error (with the form's intent). */
async function refusedAtField<T>(submission: Submission, intent: string, run: () => Promise<T>) {
  try {
    return { ok: true as const, value: await run() };
  } catch (error) {
    const refusal = refusalOf(error);
    if (!refusal.field) throw refusal;
    return { ok: false as const, response: refusalReply(submission, refusal, { hideFields: ["password", "code"], extra: { intent } }) };
  }
}

export default function Security({ loaderData, actionData }: Route.ComponentProps) {
  const { sessions, twoFactor, mustSetUp, required, enforce } = loaderData;
  const others = sessions.filter((s) => !s.current).length;
  const failed = actionData && "intent" in actionData ? actionData : null;
  const columns: Column<ActiveSession>[] = [
    {
      key: "device",
      header: m.settings_security_column_device(),
      cell: (s) => (
        <span className="inline-flex items-center gap-2">
          <span className="font-medium text-slate-900">{s.device}</span>
          {s.current ? <Badge tone="success">{m.settings_security_this_device()}</Badge> : null}
        </span>
      ),
    },
    { key: "ip", header: m.settings_security_column_ip(), hideOnPhone: true, cell: (s) => s.ip ?? m.settings_security_unknown() },
    { key: "since", header: m.settings_security_column_signed_in(), hideOnPhone: true, cell: (s) => formatWhen(s.signedInAt) },
    { key: "used", header: m.settings_security_column_last_active(), cell: (s) => formatWhen(s.lastUsedAt) },
    {
      key: "actions",
      header: <span className="sr-only">{m.settings_actions()}</span>,
      align: "right",
      cell: (s) =>
        s.current ? null : (
          <Form method="post">
            <input type="hidden" name="session" value={s.id} />
            <Button
              type="submit"
              name="intent"
              value="one"
              variant="secondary"
              size="sm"
              aria-label={m.settings_security_sign_out_device({ device: s.device, lastActive: formatWhen(s.lastUsedAt) })}
            >
              {m.settings_security_sign_out()}
            </Button>
          </Form>
        ),
    },
  ];
  return (
    <div className="space-y-6">
      {failed?.toast ? <Toast key={failed.toast.id} toast={failed.toast} /> : null}
      <SettingsHeader current="security" />
      <TwoFactorCard
        status={twoFactor}
        mustSetUp={mustSetUp}
        required={required}
        issued={actionData && "recoveryCodes" in actionData ? actionData : null}
        failed={failed ? { intent: failed.intent, result: failed.result } : null}
      />
      {enforce ? <RequireTwoFactorCard required={required} ownerHasIt={twoFactor.on} withoutTwoFactor={enforce.withoutTwoFactor} /> : null}
      <Card padding="none">
        <div className="flex flex-wrap items-end justify-between gap-3 px-4 pt-4">
          <div>
            <CardHeader title={m.settings_security_sessions_title()} />
            <p className="mt-1 text-sm text-slate-600">{m.settings_security_sessions_description()}</p>
          </div>
          {others ? (
            <Form method="post">
              <Button type="submit" name="intent" value="others" variant="secondary">
                {m.settings_security_sign_out_others()}
              </Button>
            </Form>
          ) : null}
        </div>
        <Table
          caption={m.settings_security_sessions_caption()}
          columns={columns}
          rows={sessions}
          rowKey={(s) => s.id}
          empty={m.settings_security_no_sessions()}
        />
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
