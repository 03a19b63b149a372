import { Form, href, useSearchParams } from "react-router";
import { Megaphone, Plus } from "~/components/ui/icons";
import type { Route } from "./+types/campaigns";
import { can, requireUserWithPermission } from "~/.server/domains/auth/guards";
import { CAMPAIGN_STATUSES, listCampaigns, type CampaignStatus } from "~/.server/domains/campaigns/queries";
import { STATUS_CHOICES, statusWords } from "~/lib/campaign-live";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { CampaignTable } from "~/components/messaging/campaign-table";
import { MessageCenter } from "~/components/messaging/message-center";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { TextLink } from "~/components/ui/text-link";

// A filtered list: sent as a document without React (decision 066).
export const handle: PermissionHandle & PageHandle = { permission: "messaging:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: "Campaigns | Message Center | Jumbe" }];

const STATUS_LABELS: [CampaignStatus, string][] = STATUS_CHOICES.map((s) => [s, statusWords(s)]);

/** /messaging: the Campaigns tab. Search and status in the URL (a GET form), newest first, keyset pages. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "campaigns:view");
  const params = args.url.searchParams;
  const q = (params.get("q") ?? "").slice(0, 100);
  const wanted = params.get("status") ?? "";
  const status = (CAMPAIGN_STATUSES as readonly string[]).includes(wanted) ? (wanted as CampaignStatus) : undefined;
  const page = await listCampaigns(
    current.organization.id,
    { search: q, status },
    { cursor: params.get("after"), before: params.get("before"), limit: 25 },
  );
  return { q, status: status ?? "", page, canManage: can(current.role, "campaigns:manage") };
}

export default function Campaigns({ loaderData }: Route.ComponentProps) {
  const { q, status, page, canManage } = loaderData;
  const [search] = useSearchParams();
  const filtered = !!(q || status);
  const actions = canManage ? (
    <>
      <ButtonLink to={href("/messaging/broadcasts/new")} variant="secondary">
        <Megaphone className="size-4" aria-hidden /> Quick Broadcast
      </ButtonLink>
      <ButtonLink to={href("/messaging/campaigns/new")}>
        <Plus className="size-4" aria-hidden /> New Campaign
      </ButtonLink>
    </>
  ) : null;
  return (
    <MessageCenter tab="campaigns" actions={actions}>
      <Form
        method="get"
        className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-3 sm:items-end"
        aria-label="Filters"
      >
        <FilterInput label="Search" type="search" name="q" defaultValue={q} placeholder="Campaign or template name" />
        <FilterSelect name="status" label="Status" value={status} options={STATUS_LABELS} all="Any status" />
        <Button type="submit">Apply filters</Button>
      </Form>
      {!page.campaigns.length && !filtered && !search.get("after") && !search.get("before") ? (
        <Card>
          <h2 className="font-semibold text-slate-900">No campaigns yet</h2>
          <p className="mt-1 text-sm text-slate-600">
            A campaign sends one approved template to a segment, tags or a list of numbers, now or at a time you choose.{" "}
            {canManage ? (
              <TextLink to={href("/messaging/campaigns/new")} weight="semibold">
                Create your first campaign
              </TextLink>
            ) : null}
          </p>
        </Card>
      ) : (
        <Card padding="none">
          <CampaignTable
            rows={page.campaigns}
            older={page.older}
            newer={page.newer}
            searchParams={search}
            empty={
              <>
                No campaigns match.{" "}
                <TextLink to={href("/messaging")} weight="semibold">
                  Show every campaign
                </TextLink>
              </>
            }
          />
        </Card>
      )}
    </MessageCenter>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
