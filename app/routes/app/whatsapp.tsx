import { redirect } from "react-router";
import { AlertCircle, CheckCircle2, Circle, Lightbulb, Phone, XCircle } from "~/components/ui/icons";
import type { Route } from "./+types/whatsapp";
import { isLocalPath, requireUserWithPermission } from "~/.server/domains/auth/guards";
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
import { readForm } from "~/.server/infrastructure/http/forms";
import { postedTexts } from "~/.server/infrastructure/http/posted-fields";
import { Notice } from "~/components/ui/notice";
import { formatWhen } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card } from "~/components/ui/card";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { PageTitle } from "~/components/ui/page-title";

// A document without React (decisions 066, 067): Embedded Signup is the page's own script
// (app/assets/embedded-signup.js); a disconnect asks its question on the page the server draws.
export const handle: PermissionHandle & PageHandle = {
  permission: "whatsapp:view",
  hydrate: false,
  scripts: [...(menuDocumentPage.scripts ?? []), embeddedSignupScript],
};

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: "WhatsApp Business Setup | Jumbe" }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "whatsapp:view");
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

/** Disconnect and reconnect, from this page and from the Overview card (which names where to return). */
export async function action(args: Route.ActionArgs) {
  const { request, context } = args;
  const current = await requireUserWithPermission(args, "whatsapp:manage");
  const form = await readForm(request);
  const { intent, accountId, redirectTo: back, confirm } = postedTexts(form, ["intent", "accountId", "redirectTo", "confirm"]);
  const to = isLocalPath(back) ? back : "/whatsapp";
  const meta = requestMeta(request, context);
  if (intent !== "disconnect" && intent !== "reconnect") return redirectWithToast(to, "error", "Unknown action.");
  if (intent === "disconnect" && confirm !== "yes") {
    // Disconnecting is confirmed first; with JavaScript the dialog sends confirm=yes, without it this page asks.
    if (!(await disconnectQuestion(current.organization.id, accountId))) {
      const [known] = (await listConnections(current.organization.id)).filter((c) => c.id === accountId);
      if (!known) throw new Response("Not Found", { status: 404 });
      return redirectWithToast(to, "success", "WhatsApp account disconnected.");
    }
    const ask = new URLSearchParams({ confirm: "disconnect", account: accountId });
    if (to !== "/whatsapp") ask.set("redirectTo", to);
    return redirect(`/whatsapp?${ask}`);
  }
  try {
    const done =
      intent === "disconnect" ? await disconnectAccount(current, accountId, meta) : await reconnectAccount(current, accountId, meta);
    if (!done) throw new Response("Not Found", { status: 404 });
    return redirectWithToast(to, "success", intent === "disconnect" ? "WhatsApp account disconnected." : "WhatsApp account reconnected.");
  } catch (error) {
    if (error instanceof ConnectionError) return redirectWithToast(to, "error", error.message);
    throw error;
  }
}

const TIPS = [
  "Have your Meta Business Manager account ready, with its business details complete.",
  "Use a business phone number that can receive an SMS or a call and is not on the WhatsApp app.",
  "You need admin access to your business's Facebook page and Business Manager.",
];

const STEP_TEXT: Record<string, string> = {
  "embedded-signup": "Sign in with Facebook and choose or create your WhatsApp Business Account.",
  "verify-number": "Confirm the business phone number that will send and receive messages.",
  "complete-setup": "Jumbe registers the number and subscribes to its messages.",
};

export default function WhatsappSetup({ loaderData }: Route.ComponentProps) {
  const { signup, status, connections, loadFailed, confirmDisconnect } = loaderData;
  const canManage = useCan("whatsapp:manage");
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <div>
        <PageTitle>WhatsApp Business Setup</PageTitle>
        <p className="text-slate-600">Connect your WhatsApp Business Account through Meta&apos;s Embedded Signup.</p>
      </div>

      <p
        role="status"
        data-testid="signup-status"
        className={`flex items-center gap-2 rounded-lg border px-4 py-3 text-sm font-medium ${statusClass(loadFailed, status?.completed)}`}
      >
        {loadFailed ? (
          <>
            <XCircle className="size-5" aria-hidden />
            {"✗ Failed to load status. Try again later."}
          </>
        ) : status?.completed ? (
          <>
            <CheckCircle2 className="size-5" aria-hidden />
            Connected
          </>
        ) : (
          <>
            <AlertCircle className="size-5" aria-hidden />
            Signup not complete. Please follow the steps below.
          </>
        )}
      </p>

      {connections
        .filter((c) => c.reconnectRequested)
        .map((c) => (
          <div key={c.id} data-testid="reconnect-requested">
            <Notice tone="warning" title="Jumbe asks you to connect this account again">
              <p>
                {c.name ?? `WhatsApp Business Account ${c.wabaId}`}, asked on {formatWhen(c.reconnectRequested!.since)}. Reason:{" "}
                {c.reconnectRequested!.reason}
              </p>
              <p className="mt-1">Connect it again with Embedded Signup below; this notice goes away once it is connected.</p>
            </Notice>
          </div>
        ))}

      <ol className="grid gap-4 sm:grid-cols-3" aria-label="Setup steps">
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
            <p className="mt-2 text-sm text-slate-600">{STEP_TEXT[step.id]}</p>
            <p className="mt-2 text-xs font-medium uppercase tracking-wide text-slate-500">
              {step.status === "error" ? "Error" : step.status === "completed" ? "Completed" : "Pending"}
            </p>
          </li>
        ))}
      </ol>

      {canManage ? (
        <Card padding="lg" aria-labelledby="connect-heading">
          <h2 id="connect-heading" className="text-lg font-semibold">
            {connections.length ? "Connect another WhatsApp number" : "Connect your WhatsApp Business Account"}
          </h2>
          <p className="mt-1 mb-4 text-sm text-slate-600">
            A window from Meta opens. Sign in, pick or create your business, WhatsApp Business Account and phone number, and Jumbe finishes
            the setup.
            {signup.mode === "sandbox" ? " This server runs in sandbox mode: the window is Jumbe's local stand-in for Meta." : ""}
          </p>
          <ConnectButton config={signup} label={connections.length ? "Connect another number" : "Connect WhatsApp Business"} />
        </Card>
      ) : (
        <p className="text-sm text-slate-600" data-testid="connect-not-allowed">
          Your organisation&apos;s owner or an admin connects and disconnects WhatsApp accounts.
        </p>
      )}

      {connections.length ? (
        <section aria-labelledby="accounts-heading" className="space-y-3">
          <h2 id="accounts-heading" className="text-lg font-semibold">
            Connected accounts
          </h2>
          <ConnectionList connections={connections} busy={false} redirectTo="/whatsapp" confirming={confirmDisconnect} />
        </section>
      ) : null}

      <section className="rounded-xl border border-amber-200 bg-amber-50 p-5" aria-labelledby="tips-heading">
        <h2 id="tips-heading" className="flex items-center gap-2 font-semibold text-amber-900">
          <Lightbulb className="size-5" aria-hidden /> Before you start
        </h2>
        <ul className="mt-3 space-y-2 text-sm text-amber-900">
          {TIPS.map((tip) => (
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
