import type { Route } from "./+types/developer-errors";
import { requireUserWithPermission } from "~/.server/domains/auth/guards";
import { errorCatalogueRows } from "~/.server/adapters/api-v1/reference";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { PageTitle } from "~/components/ui/page-title";
import { BackLink } from "~/components/ui/back-link";
import { ErrorCatalogue } from "~/components/developers/api-reference";
import type { PermissionHandle } from "~/lib/permissions";

export const handle: PermissionHandle = { permission: "developer:view" };

export const meta: Route.MetaFunction = () => [{ title: "API errors | Developers | Jumbe" }];

/** The one catalogue of the API's error codes, as the OpenAPI document publishes it. */
export async function loader(args: Route.LoaderArgs) {
  await requireUserWithPermission(args, "developer:view");
  return { errors: errorCatalogueRows() };
}

export default function DeveloperErrors({ loaderData }: Route.ComponentProps) {
  return (
    <div className="space-y-6">
      <BackLink to="/developers#endpoints-heading">Developers</BackLink>
      <PageTitle>API errors</PageTitle>
      <ErrorCatalogue errors={loaderData.errors} />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
