import { data, href } from "react-router";
import type { Route } from "./+types/callback";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf } from "~/.server/infrastructure/http/refusal-reply";
import { finishConnect } from "~/.server/domains/integrations/oauth";
import { PageErrorBoundary } from "~/components/layout/page-error";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Where a provider sends the member back after its consent page (OAuth 2's redirect URI): like the
// embedded signup's callback, a GET that changes state, because the provider decides the method.
// The state proves the flow was started here by this member (decision 079).
export const handle: PermissionHandle & PageHandle = { permission: "developer:manage", ...menuDocumentPage };

export const meta: Route.MetaFunction = () => [{ title: `${m.integrations_title()} | Jumbe` }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const actor = { organizationId: current.organization.id, userId: current.user.id, meta: requestMeta(args.request, args.context) };
  try {
    const { name, account } = await finishConnect(actor, args.params.provider, args.url.searchParams);
    return redirectWithToast(href("/integrations"), "success", m.integrations_connected({ name, account }));
  } catch (error) {
    // Refused (a stale or foreign state, a declined consent, the provider's error): the page says why.
    const refusal = refusalOf(error);
    throw data(refusal.message, { status: refusal.status });
  }
}

export default function IntegrationCallback() {
  return null;
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
