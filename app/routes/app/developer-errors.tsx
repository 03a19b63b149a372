import type { Route } from "./+types/developer-errors";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { errorCatalogueRows } from "~/.server/adapters/api-v1/reference";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { PageTitle } from "~/components/ui/page-title";
import { BackLink } from "~/components/ui/back-link";
import { ErrorCatalogue } from "~/components/developers/api-reference";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { errorAction, errorMeaning } from "~/.server/domains/developer/reference-words";
import { m } from "~/paraglide/messages";

// A reference page with nothing to do in the browser: sent as a document without React, as the admin
// console is (decision 063), with the kit's two scripts for the shell's menus and forms.
export const handle: PermissionHandle & PageHandle = { permission: "developer:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.developers_errors_title()} | ${m.developers_title()} | Jumbe` }];

/** The one catalogue of the API's error codes, as the OpenAPI document publishes it. */
export async function loader(args: Route.LoaderArgs) {
  await requireDeclaredUser(args);
  // What each code means and what to do, in the page's language; the codes and statuses as the API has them.
  return {
    errors: errorCatalogueRows().map((row) => ({
      ...row,
      meaning: errorMeaning(row.code, row.meaning),
      action: errorAction(row.code, row.action),
    })),
  };
}

export default function DeveloperErrors({ loaderData }: Route.ComponentProps) {
  return (
    <div className="space-y-6">
      <BackLink to="/developers#endpoints-heading">{m.developers_title()}</BackLink>
      <PageTitle>{m.developers_errors_title()}</PageTitle>
      <ErrorCatalogue errors={loaderData.errors} />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
