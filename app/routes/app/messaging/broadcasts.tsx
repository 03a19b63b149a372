import { Form, href, useSearchParams } from "react-router";
import { Megaphone } from "~/components/ui/icons";
import type { Route } from "./+types/broadcasts";
import { can, requireUserWithPermission } from "~/.server/domains/auth/guards";
import { ENDED_STATUSES, listCampaigns, type CampaignStatus } from "~/.server/domains/campaigns/queries";
import { ENDED_CHOICES } from "~/lib/campaign-live";
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

export const meta: Route.MetaFunction = () => [{ title: "Broadcast History | Message Center | Jumbe" }];

/** /messaging/broadcasts: Broadcast History, every campaign and quick broadcast that has ended, with its final figures. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "campaigns:view");
  const params = args.url.searchParams;
  const q = (params.get("q") ?? "").slice(0, 100);
  const wanted = params.get("status") ?? "";
  const status = ENDED_STATUSES.includes(wanted as CampaignStatus) ? (wanted as CampaignStatus) : undefined;
  const page = await listCampaigns(
    current.organization.id,
    { search: q, status, ended: true },
    { cursor: params.get("after"), before: params.get("before"), limit: 25 },
  );
  return { q, status: status ?? "", page, canManage: can(current.role, "campaigns:manage") };
}

export default function Broadcasts({ loaderData }: Route.ComponentProps) {
  const { q, status, page, canManage } = loaderData;
  const [search] = useSearchParams();
  const actions = canManage ? (
    <ButtonLink to={href("/messaging/broadcasts/new")}>
      <Megaphone className="size-4" aria-hidden /> Quick Broadcast
    </ButtonLink>
  ) : null;
  return (
    <MessageCenter tab="broadcasts" actions={actions}>
      <Form
        method="get"
        className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-3 sm:items-end"
        aria-label="Filters"
      >
        <FilterInput label="Search" type="search" name="q" defaultValue={q} placeholder="Name or template" />
        <FilterSelect
          name="status"
          label="Ended as"
          value={status}
          options={ENDED_CHOICES.map((s) => [s, s.charAt(0).toUpperCase() + s.slice(1)])}
          all="Any"
        />
        <Button type="submit">Apply filters</Button>
      </Form>
      {!page.campaigns.length && !q && !status && !search.get("after") && !search.get("before") ? (
        <Card>
          <h2 className="font-semibold text-slate-900">No broadcasts yet</h2>
          <p className="mt-1 text-sm text-slate-600">
            Every campaign and quick broadcast that has ended is listed here with its final figures.{" "}
            {canManage ? (
              <TextLink to={href("/messaging/broadcasts/new")} weight="semibold">
                Send a quick broadcast
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
            ended
            empty={
              <>
                Nothing matches.{" "}
                <TextLink to={href("/messaging/broadcasts")} weight="semibold">
                  Show everything
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
