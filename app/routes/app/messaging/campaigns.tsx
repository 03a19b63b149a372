import { Form, href, useSearchParams } from "react-router";
import { Megaphone, Plus } from "~/components/ui/icons";
import type { Route } from "./+types/campaigns";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { CAMPAIGN_STATUSES, listCampaigns, type CampaignStatus } from "~/.server/domains/campaigns/queries";
import { followsLive, refreshesWithoutScript, STATUS_CHOICES, statusWords } from "~/lib/campaign-live";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { CampaignTable } from "~/components/messaging/campaign-table";
import { MessageCenter } from "~/components/messaging/message-center";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { liveDocumentPage, loadAsDocument } from "~/components/layout/document-page";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";

// A filtered list: sent as a document without React (decision 066). Its figures follow live as a
// campaign's page does (decision 067): app/assets/live.js follows /messaging/events for the campaigns
// on the page that can still change and redraws the table; without JavaScript the page refreshes
// itself while one of them sends.
export const handle: PermissionHandle & PageHandle = { permission: "campaigns:view", ...liveDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.messaging_campaigns_meta_title() }];

/** The status filter's choices, in the request's language. */
const statusLabels = (): [CampaignStatus, string][] => STATUS_CHOICES.map((s) => [s, statusWords(s)]);

/** /messaging: the Campaigns tab. Search and status in the URL (a GET form), newest first, keyset pages. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const params = args.url.searchParams;
  const q = (params.get("q") ?? "").slice(0, 100);
  const wanted = params.get("status") ?? "";
  const status = (CAMPAIGN_STATUSES as readonly string[]).includes(wanted) ? (wanted as CampaignStatus) : undefined;
  const page = await listCampaigns(
    current.organization.id,
    { search: q, status },
    { cursor: params.get("after"), before: params.get("before"), limit: 25 },
  );
  const now = Date.now();
  return {
    q,
    status: status ?? "",
    page,
    canManage: can(current.role, "campaigns:manage"),
    // The campaigns whose figures can still change (the live stream follows them), and whether a
    // page without JavaScript refreshes itself for one.
    followed: page.campaigns.filter((c) => followsLive(c, now)).map((c) => c.id),
    refresh: page.campaigns.some((c) => refreshesWithoutScript(c, now)),
  };
}

export default function Campaigns({ loaderData }: Route.ComponentProps) {
  const { q, status, page, canManage, followed, refresh } = loaderData;
  const [search] = useSearchParams();
  // A later page of a filter that matched: not the empty book.
  const paged = !!(search.get("after") || search.get("before"));
  const filtered = !!(q || status);
  const actions = canManage ? (
    <>
      <ButtonLink to={href("/messaging/broadcasts/new")} variant="secondary">
        <Megaphone className="size-4" aria-hidden /> {m.messaging_quick_broadcast_button()}
      </ButtonLink>
      <ButtonLink to={href("/messaging/campaigns/new")}>
        <Plus className="size-4" aria-hidden /> {m.messaging_new_campaign_button()}
      </ButtonLink>
    </>
  ) : null;
  return (
    <MessageCenter tab="campaigns" actions={actions}>
      {refresh ? (
        // Without JavaScript the list refreshes itself while a campaign on it sends (with it, the events route updates it).
        <noscript>
          <meta httpEquiv="refresh" content="5" />
        </noscript>
      ) : null}
      <Form
        method="get"
        className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-3 sm:items-end"
        aria-label={m.messaging_filters_label()}
      >
        <FilterInput
          label={m.messaging_search()}
          type="search"
          name="q"
          defaultValue={q}
          placeholder={m.messaging_campaigns_search_placeholder()}
        />
        <FilterSelect
          name="status"
          label={m.messaging_campaigns_col_status()}
          value={status}
          options={statusLabels()}
          all={m.messaging_campaigns_filter_any_status()}
        />
        <Button type="submit">{m.messaging_apply_filters()}</Button>
      </Form>
      {!page.campaigns.length && !filtered && !paged ? (
        <Card>
          <h2 className="font-semibold text-slate-900">{m.messaging_campaigns_empty_title()}</h2>
          <p className="mt-1 text-sm text-slate-600">
            {m.messaging_campaigns_empty_body()}{" "}
            {canManage ? (
              <TextLink to={href("/messaging/campaigns/new")} weight="semibold">
                {m.messaging_campaigns_empty_link()}
              </TextLink>
            ) : null}
          </p>
        </Card>
      ) : (
        <Card
          padding="none"
          id="campaigns-table"
          data-live-region
          data-live-events={followed.length ? `${href("/messaging/events")}?ids=${followed.join(",")}` : undefined}
          data-live-on="figures"
        >
          <CampaignTable
            rows={page.campaigns}
            older={page.older}
            newer={page.newer}
            searchParams={search}
            empty={
              <>
                {m.messaging_campaigns_none_match()}{" "}
                <TextLink to={href("/messaging")} weight="semibold">
                  {m.messaging_campaigns_show_all()}
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
