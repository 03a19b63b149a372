import { Form, href, useSearchParams } from "react-router";
import { Megaphone } from "~/components/ui/icons";
import type { Route } from "./+types/broadcasts";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { ENDED_STATUSES, listCampaigns, type CampaignStatus } from "~/.server/domains/campaigns/queries";
import { ENDED_CHOICES, statusWords } from "~/lib/campaign-live";
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
import { m } from "~/paraglide/messages";

// A filtered list: sent as a document without React (decision 066).
export const handle: PermissionHandle & PageHandle = { permission: "campaigns:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.messaging_broadcasts_meta_title() }];

/** /messaging/broadcasts: Broadcast History, every campaign and quick broadcast that has ended, with its final figures. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
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
  // A later page of a filter that matched: not the empty book.
  const paged = !!(search.get("after") || search.get("before"));
  const actions = canManage ? (
    <ButtonLink to={href("/messaging/broadcasts/new")}>
      <Megaphone className="size-4" aria-hidden /> {m.messaging_quick_broadcast_button()}
    </ButtonLink>
  ) : null;
  return (
    <MessageCenter tab="broadcasts" actions={actions}>
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
          placeholder={m.messaging_broadcasts_search_placeholder()}
        />
        <FilterSelect
          name="status"
          label={m.messaging_broadcasts_filter_ended_as()}
          value={status}
          options={ENDED_CHOICES.map((s) => [s, statusWords(s)])}
          all={m.messaging_broadcasts_filter_any()}
        />
        <Button type="submit">{m.messaging_apply_filters()}</Button>
      </Form>
      {!page.campaigns.length && !q && !status && !paged ? (
        <Card>
          <h2 className="font-semibold text-slate-900">{m.messaging_broadcasts_empty_title()}</h2>
          <p className="mt-1 text-sm text-slate-600">
            {m.messaging_broadcasts_empty_body()}{" "}
            {canManage ? (
              <TextLink to={href("/messaging/broadcasts/new")} weight="semibold">
                {m.messaging_broadcasts_empty_link()}
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
                {m.messaging_broadcasts_none_match()}{" "}
                <TextLink to={href("/messaging/broadcasts")} weight="semibold">
                  {m.messaging_broadcasts_show_all()}
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
