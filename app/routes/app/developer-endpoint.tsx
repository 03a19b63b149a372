import { data } from "react-router";
import type { Route } from "./+types/developer-endpoint";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { endpointReference } from "~/.server/adapters/api-v1/reference";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { PageTitle } from "~/components/ui/page-title";
import { BackLink } from "~/components/ui/back-link";
import { EndpointDetail } from "~/components/developers/api-reference";
import { exampleLanguage } from "~/components/developers/languages";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { endpointDescription, endpointSummary, errorMeaning } from "~/.server/domains/developer/reference-words";
import { m } from "~/paraglide/messages";

// A reference page: a document without React, as the error catalogue is (decision 066).
export const handle: PermissionHandle & PageHandle = { permission: "developer:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = ({ data: page }) => [
  { title: `${page ? page.endpoint.summary : m.developers_endpoint()} | ${m.developers_title()} | Jumbe` },
];

/** One endpoint of the API: what it does, its example in curl, JavaScript or Python (`?lang=`), and its errors. */
export async function loader(args: Route.LoaderArgs) {
  await requireDeclaredUser(args);
  const language = exampleLanguage(args.url);
  const endpoint = endpointReference(args.params.operation, language);
  if (!endpoint) throw data(m.developers_endpoint_not_found(), { status: 404 });
  // The reference's words in the page's language; paths, codes and examples as the API has them.
  return {
    endpoint: {
      ...endpoint,
      summary: endpointSummary(endpoint.operationId, endpoint.summary),
      description: endpointDescription(endpoint.operationId, endpoint.description),
      errors: endpoint.errors.map((row) => ({ ...row, meaning: errorMeaning(row.code, row.meaning) })),
    },
    language,
  };
}

export default function DeveloperEndpoint({ loaderData }: Route.ComponentProps) {
  return (
    <div className="space-y-6">
      <BackLink to="/developers#endpoints-heading">{m.developers_title()}</BackLink>
      <PageTitle>{loaderData.endpoint.summary}</PageTitle>
      <EndpointDetail endpoint={loaderData.endpoint} language={loaderData.language} />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
