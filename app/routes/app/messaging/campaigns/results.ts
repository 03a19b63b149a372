import type { Route } from "./+types/results";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import { getCampaign, openRecipientsCsv, RECIPIENT_RESULTS, type RecipientResult } from "~/.server/domains/campaigns/queries";
import { refusalOf, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "campaigns:view", signInReturnsTo: "/messaging/campaigns/:id" };

/**
 * GET /messaging/campaigns/:id/results.csv: a campaign's per-recipient results (`?result=` keeps
 * the page's filter), streamed as a formula-safe CSV. Another tenant's id is not found.
 */
export async function loader(args: Route.LoaderArgs) {
  const { params, url } = args;
  const current = await requireDeclaredResource(args);
  const wanted = url.searchParams.get("result") ?? "";
  const result = (RECIPIENT_RESULTS as readonly string[]).includes(wanted) ? (wanted as RecipientResult) : undefined;
  try {
    const campaign = await getCampaign(current.organization.id, params.id);
    const body = await openRecipientsCsv(current.organization.id, campaign.id, result);
    const slug =
      campaign.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "")
        .slice(0, 60) || "campaign";
    return new Response(body, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${slug}-results${result ? `-${result}` : ""}.csv"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  } catch (error) {
    throwIfNotFound(refusalOf(error), m.messaging_campaign_not_found());
    throw error;
  }
}

export function action() {
  return methodNotAllowed("GET");
}
