import { redirect } from "react-router";
import { AlertCircle, CheckCircle2, Circle, Lightbulb, Phone, XCircle } from "~/components/ui/icons";
import type { Route } from "./+types/whatsapp";
import * as z from "zod/mini";
import { isLocalPath, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import {
  listConnections,
  signupStatus,
  disconnectAccount,
  disconnectQuestion,
  reconnectAccount,
  ConnectionError,
} from "~/.server/domains/whatsapp/connections";
import { embeddedSignupConfig } from "~/.server/domains/whatsapp/signup-config";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { log } from "~/.server/infrastructure/log";
import { ConnectButton, embeddedSignupScript } from "~/components/whatsapp/connect-button";
import { ConnectionList } from "~/components/whatsapp/connection-list";
import { useCan } from "~/components/layout/shell-role";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { Notice } from "~/components/ui/notice";
import { formatWhen } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card } from "~/components/ui/card";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { PageTitle } from "~/components/ui/page-title";
import { m } from "~/paraglide/messages";

// A document without React (decisions 066, 067): Embedded Signup is the page's own script
// (app/assets/embedded-signup.js); a disconnect asks its question on the page the server draws.
export const handle: PermissionHandle & PageHandle = {
  permission: "whatsapp:view",
  hydrate: false,
  scripts: [...(menuDocumentPage.scripts ?? []), embeddedSignupScript],
};

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.whatsapp_setup_title()} | Jumbe` }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const signup = embeddedSignupConfig(current);
  try {
    const connections = await listConnections(current.organization.id);
    const status = await signupStatus(current.organization.id, connections);
    return { signup, status, connections, loadFailed: false, confirmDisconnect: await askedToConfirm(current.organization.id, args.url) };
  } catch (error) {
    log().error({ err: error }, "could not load the WhatsApp setup status");
    return { signup, status: null, connections: [], loadFailed: true, confirmDisconnect: null };
  }
}

/** ?confirm=disconnect&account=<id>[&redirectTo=]: the question a disconnect asks first (the page without JavaScript shows it). */
async function askedToConfirm(organizationId: string, url: URL) {
  if (url.searchParams.get("confirm") !== "disconnect") return null;
  const question = await disconnectQuestion(organizationId, url.searchParams.get("account") ?? "");
  if (!question) return null;
  const back = url.searchParams.get("redirectTo") ?? "";
  return { ...question, redirectTo: isLocalPath(back) ? back : "/whatsapp" };
}

// The account a button names, where to go back to (the Overview card names it), and a disconnect's confirmation.
const AccountSchema = z.object({ accountId: postedText, redirectTo: postedText, confirm: postedText });
const backTo = (redirectTo: string) => (isLocalPath(redirectTo) ? redirectTo : "/whatsapp");

/** Disconnect and reconnect, from this page and from the Overview card (which names where to return). */
export async function action(args: Route.ActionArgs) {
  const meta = requestMeta(args.request, args.context);
  const change = intent(AccountSchema, async ({ value: { accountId, redirectTo, confirm }, user, intent }) => {
    const to = backTo(redirectTo);
    if (intent === "disconnect" && confirm !== "yes") {
      // Disconnecting is confirmed first; with JavaScript the dialog sends confirm=yes, without it this page asks.
      if (!(await disconnectQuestion(user.organization.id, accountId))) {
        const [known] = (await listConnections(user.organization.id)).filter((c) => c.id === accountId);
        if (!known) throw new Response("Not Found", { status: 404 });
        return redirectWithToast(to, "success", m.whatsapp_disconnected_toast());
      }
      const ask = new URLSearchParams({ confirm: "disconnect", account: accountId });
      if (to !== "/whatsapp") ask.set("redirectTo", to);
      return redirect(`/whatsapp?${ask}`);
    }
    try {
      const done = intent === "disconnect" ? await disconnectAccount(user, accountId, meta) : await reconnectAccount(user, accountId, meta);
      if (!done) throw new Response("Not Found", { status: 404 });
      return redirectWithToast(to, "success", intent === "disconnect" ? m.whatsapp_disconnected_toast() : m.whatsapp_reconnected_toast());
    } catch (error) {
      if (error instanceof ConnectionError) return redirectWithToast(to, "error", error.message);
      throw error;
    }
  });
  return intentAction(args, {
    permission: "whatsapp:manage",
    // The connection list and the Overview card post both.
    intents: { disconnect: change, reconnect: change },
    unknown: (_, read) => redirectWithToast(backTo(read(AccountSchema)?.redirectTo ?? ""), "error", m.whatsapp_unknown_action()),
  });
}

const tips = () => [m.whatsapp_tip_business_manager(), m.whatsapp_tip_phone_number(), m.whatsapp_tip_admin_access()];

/** What each setup step asks, by its id (signupStatus names the steps). */
function stepText(id: string) {
  if (id === "embedded-signup") return m.whatsapp_step_signup_text();
  if (id === "verify-number") return m.whatsapp_step_verify_text();
  return id === "complete-setup" ? m.whatsapp_step_complete_text() : undefined;
}

export default function WhatsappSetup({ loaderData }: Route.ComponentProps) {
  const { signup, status, connections, loadFailed, confirmDisconnect } = loaderData;
  const canManage = useCan("whatsapp:manage");
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <div>
        <PageTitle>{m.whatsapp_setup_title()}</PageTitle>
        <p className="text-slate-600">{m.whatsapp_setup_intro()}</p>
      </div>

      <p
        role="status"
        data-testid="signup-status"
        className={`flex items-center gap-2 rounded-lg border px-4 py-3 text-sm font-medium ${statusClass(loadFailed, status?.completed)}`}
      >
        {loadFailed ? (
          <>
            <XCircle className="size-5" aria-hidden />
            {m.whatsapp_status_failed()}
          </>
        ) : status?.completed ? (
          <>
            <CheckCircle2 className="size-5" aria-hidden />
            {m.whatsapp_connected()}
          </>
        ) : (
          <>
            <AlertCircle className="size-5" aria-hidden />
            {m.whatsapp_status_incomplete()}
          </>
        )}
      </p>

      {connections
        .filter((c) => c.reconnectRequested)
        .map((c) => (
          <div key={c.id} data-testid="reconnect-requested">
            <Notice tone="warning" title={m.whatsapp_reconnect_requested_title()}>
              <p>
                {m.whatsapp_reconnect_requested_detail({
                  name: c.name ?? m.whatsapp_account_fallback({ waba: c.wabaId }),
                  when: formatWhen(c.reconnectRequested!.since),
                  reason: c.reconnectRequested!.reason,
                })}
              </p>
              <p className="mt-1">{m.whatsapp_reconnect_requested_help()}</p>
            </Notice>
          </div>
        ))}

      <ol className="grid gap-4 sm:grid-cols-3" aria-label={m.whatsapp_steps_label()}>
        {(status?.steps ?? []).map((step, index) => (
          <li
            key={step.id}
            className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm"
            data-testid={`step-${step.id}`}
            data-status={step.status}
          >
            <div className="flex items-center gap-2">
              <StepIcon status={step.status} />
              <span className="text-sm font-semibold">
                {index + 1}. {step.title}
              </span>
            </div>
            <p className="mt-2 text-sm text-slate-600">{stepText(step.id)}</p>
            <p className="mt-2 text-xs font-medium uppercase tracking-wide text-slate-500">
              {step.status === "error"
                ? m.whatsapp_step_error()
                : step.status === "completed"
                  ? m.whatsapp_step_completed()
                  : m.whatsapp_step_pending()}
            </p>
          </li>
        ))}
      </ol>

      {canManage ? (
        <Card padding="lg" aria-labelledby="connect-heading">
          <h2 id="connect-heading" className="text-lg font-semibold">
            {connections.length ? m.whatsapp_connect_another_heading() : m.whatsapp_connect_heading()}
          </h2>
          <p className="mt-1 mb-4 text-sm text-slate-600">
            {m.whatsapp_connect_explained()}
            {signup.mode === "sandbox" ? ` ${m.whatsapp_connect_sandbox()}` : ""}
          </p>
          <ConnectButton config={signup} label={connections.length ? m.whatsapp_connect_another_button() : m.whatsapp_connect_button()} />
        </Card>
      ) : (
        <p className="text-sm text-slate-600" data-testid="connect-not-allowed">
          {m.whatsapp_connect_not_allowed()}
        </p>
      )}

      {connections.length ? (
        <section aria-labelledby="accounts-heading" className="space-y-3">
          <h2 id="accounts-heading" className="text-lg font-semibold">
            {m.whatsapp_connected_accounts()}
          </h2>
          <ConnectionList connections={connections} busy={false} redirectTo="/whatsapp" confirming={confirmDisconnect} />
        </section>
      ) : null}

      <section className="rounded-xl border border-amber-200 bg-amber-50 p-5" aria-labelledby="tips-heading">
        <h2 id="tips-heading" className="flex items-center gap-2 font-semibold text-amber-900">
          <Lightbulb className="size-5" aria-hidden /> {m.whatsapp_tips_heading()}
        </h2>
        <ul className="mt-3 space-y-2 text-sm text-amber-900">
          {tips().map((tip) => (
            <li key={tip} className="flex gap-2">
              <Phone className="mt-0.5 size-4 shrink-0" aria-hidden />
              {tip}
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}

function statusClass(failed: boolean, completed: boolean | undefined) {
  if (failed) return "border-red-200 bg-red-50 text-red-800";
  return completed ? "border-brand-200 bg-brand-50 text-brand-900" : "border-amber-200 bg-amber-50 text-amber-900";
}

function StepIcon({ status }: { status: string }) {
  if (status === "completed") return <CheckCircle2 className="size-5 text-brand-600" aria-hidden />;
  if (status === "error") return <XCircle className="size-5 text-red-600" aria-hidden />;
  return <Circle className="size-5 text-slate-400" aria-hidden />;
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
