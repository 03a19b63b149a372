import { href, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import { CheckCircle2, XCircle } from "~/components/ui/icons";
import type { Route } from "./+types/embedded-callback";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { toastCookie } from "~/.server/infrastructure/http/toast";
import { FAILURE_REASONS, handleEmbeddedCallback, type FailureReason } from "~/.server/domains/whatsapp/callback";
import { listConnections } from "~/.server/domains/whatsapp/connections";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card } from "~/components/ui/card";
import type { PermissionHandle } from "~/lib/permissions";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "whatsapp:manage" };

export const meta: Route.MetaFunction = () => [{ title: `${m.whatsapp_callback_title()} | Jumbe` }];

/**
 * Meta's flow ends here with ?code&shared_waba_id (and the state Jumbe sent). The code is used at
 * once, then the browser is sent to ?outcome=..., so a reload shows the result instead of spending
 * the single-use code a second time.
 */
export async function loader(args: Route.LoaderArgs) {
  const { request, context, url } = args;
  const current = await requireDeclaredUser(args);
  const outcome = url.searchParams.get("outcome");
  if (outcome) return showOutcome(current.organization.id, outcome, url.searchParams.get("reason"), url.searchParams.get("waba"));

  const result = await handleEmbeddedCallback(current, url, requestMeta(request, context));
  const headers = new Headers();
  if (result.kind === "missing") {
    headers.append("Set-Cookie", await toastCookie("error", m.whatsapp_callback_missing()));
    throw redirect("/embedded-callback?outcome=missing", { headers });
  }
  if (result.kind === "failed") {
    headers.append("Set-Cookie", await toastCookie("error", m.whatsapp_callback_failed_toast()));
    throw redirect(`/embedded-callback?outcome=failed&reason=${result.reason}`, { headers });
  }
  headers.append("Set-Cookie", await toastCookie("success", m.whatsapp_callback_complete()));
  throw redirect(`/embedded-callback?outcome=connected&waba=${encodeURIComponent(result.account.wabaId)}`, { headers });
}

async function showOutcome(organizationId: string, outcome: string, reason: string | null, wabaId: string | null) {
  if (outcome === "connected") {
    // Only what this tenant really has connected is shown as a success.
    const connection = (await listConnections(organizationId)).find((c) => c.wabaId === wabaId && c.status === "connected");
    if (connection)
      return {
        state: "success" as const,
        numbers: connection.numbers.map((n) => `${n.number}${n.verifiedName ? ` (${n.verifiedName})` : ""}`),
      };
  }
  if (outcome === "missing") return { state: "missing" as const };
  const known = reason && reason in FAILURE_REASONS ? FAILURE_REASONS[reason as FailureReason] : null;
  return { state: "error" as const, reason: known };
}

export default function EmbeddedCallback({ loaderData }: Route.ComponentProps) {
  return (
    <div className="mx-auto max-w-xl">
      {loaderData.state === "success" ? <meta httpEquiv="refresh" content="2;url=/whatsapp-setup" /> : null}
      <Card padding="xl" className="text-center" data-testid="callback-result" data-state={loaderData.state}>
        {loaderData.state === "success" ? (
          <>
            <CheckCircle2 className="mx-auto size-12 text-brand-600" aria-hidden />
            <h1 className="mt-4 text-xl font-bold">{m.whatsapp_callback_complete()}</h1>
            <p className="mt-2 text-slate-600">{m.whatsapp_callback_connected({ numbers: loaderData.numbers.join(", ") })}</p>
            <p className="mt-4 text-sm text-slate-500">
              {m.whatsapp_callback_taking_you()}{" "}
              <TextLink to={href("/whatsapp")} weight="medium">
                {m.whatsapp_callback_setup_link()}
              </TextLink>
              ...
            </p>
          </>
        ) : (
          <>
            <XCircle className="mx-auto size-12 text-red-600" aria-hidden />
            <div role="alert">
              <h1 className="mt-4 text-xl font-bold">
                {loaderData.state === "missing" ? m.whatsapp_callback_missing() : m.whatsapp_callback_failed()}
              </h1>
              {loaderData.state === "error" && loaderData.reason ? <p className="mt-2 text-slate-600">{loaderData.reason}</p> : null}
            </div>
            <Link
              to={href("/whatsapp")}
              className="mt-6 inline-flex rounded-lg bg-brand-700 px-4 py-2.5 text-sm font-semibold text-white hover:bg-brand-900"
            >
              {m.whatsapp_callback_back()}
            </Link>
          </>
        )}
      </Card>
    </div>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
