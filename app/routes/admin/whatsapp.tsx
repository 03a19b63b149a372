import { Form, useSearchParams } from "react-router";
import type { Route } from "./+types/whatsapp";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { adminAccountsPage, readAccountFilters } from "~/.server/domains/admin/whatsapp/accounts";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import { Notice } from "~/components/ui/notice";
import { Pager, pagerOrder, Table, type Column } from "~/components/ui/table";
import { Name } from "~/components/ui/name";
import { formatDay, formatNumber, formatWhen } from "~/lib/dates";
import {
  ACCOUNT_STATUS_LABELS,
  ACCOUNT_STATUSES,
  qualityWords,
  tierWords,
  webhookWords,
  type AccountStatus,
  type AdminAccountRow,
} from "~/lib/admin-whatsapp";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";

export const meta: Route.MetaFunction = () => [{ title: "WhatsApp accounts | Admin console | Jumbe" }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const params = args.url.searchParams;
  const { filters, problems } = readAccountFilters(params);
  const page = await adminAccountsPage(platformScope(current), filters, { after: params.get("after"), before: params.get("before") });
  return { ...page, filters, problems, now: Date.now() };
}

const STATUS_TONE: Record<AccountStatus, "success" | "neutral" | "danger" | "warning"> = {
  connected: "success",
  disconnected: "neutral",
  token_refused: "danger",
  reconnect_requested: "warning",
};

function columns(now: number): Column<AdminAccountRow>[] {
  return [
    {
      key: "business",
      header: "Business",
      sortable: true,
      cell: (a) => (
        <>
          <TextLink to={`/admin/whatsapp/${a.id}`} weight="medium">
            <Name>{a.business}</Name>
          </TextLink>
          {a.name && a.name !== a.business ? <span className="block text-xs text-slate-500">{a.name}</span> : null}
        </>
      ),
    },
    {
      key: "number",
      header: "Number",
      cell: (a) =>
        a.numbers.length ? (
          <ul>
            {a.numbers.map((n) => (
              <li key={n.phoneNumberId} className="whitespace-nowrap">
                {n.display}
              </li>
            ))}
          </ul>
        ) : (
          <span className="text-slate-500">None</span>
        ),
    },
    { key: "waba", header: "WABA ID", sortable: true, cell: (a) => <span className="font-mono text-xs">{a.wabaId}</span> },
    {
      key: "status",
      header: "Status",
      cell: (a) => <Badge tone={STATUS_TONE[a.status]}>{ACCOUNT_STATUS_LABELS[a.status]}</Badge>,
    },
    {
      key: "quality",
      header: "Quality",
      cell: (a) => (a.numbers.length ? a.numbers.map((n) => qualityWords(n.quality)).join(", ") : "—"),
      hideOnPhone: true,
    },
    {
      key: "tier",
      header: "Messaging tier",
      cell: (a) => (a.numbers.length ? a.numbers.map((n) => tierWords(n.messagingLimit)).join(", ") : "—"),
      hideOnPhone: true,
    },
    {
      key: "messages",
      header: "Messages this month",
      align: "right",
      cell: (a) => formatNumber(a.messagesThisMonth),
      hideOnPhone: true,
    },
    {
      key: "webhook",
      header: "Webhook",
      cell: (a) => {
        const hook = webhookWords(a.subscribed, a.lastWebhookAt, now);
        return (
          <>
            <Badge tone={hook.tone}>{hook.label}</Badge>
            <span className="block text-xs text-slate-500">
              {a.lastWebhookAt ? <>Last: {formatWhen(a.lastWebhookAt)}</> : "Nothing received"}
            </span>
          </>
        );
      },
      hideOnPhone: true,
    },
    { key: "api", header: "API version", cell: (a) => a.apiVersion, hideOnPhone: true },
    {
      key: "connected",
      header: "Connected since",
      sortable: true,
      cell: (a) => <time dateTime={a.connectedAt}>{formatDay(a.connectedAt)}</time>,
      hideOnPhone: true,
    },
  ];
}

// Every WhatsApp account across tenants, with search, a status filter, sorting and keyset pages.
export default function AdminWhatsapp({ loaderData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const { accounts, filters, problems, next, previous, now } = loaderData;
  const accountOrder = pagerOrder(filters.sort === "connected", filters.dir);
  const filtered = !!(filters.q || filters.status);
  return (
    <div>
      <PageTitle>WhatsApp accounts</PageTitle>
      <p className="mt-1 text-slate-600">
        Every organisation&apos;s WhatsApp Business Accounts: their numbers, quality, messaging tier and webhooks. Open one to view its
        logs, test its connection or manage it.
      </p>
      <Form method="get" className="mt-6 flex flex-wrap items-end gap-3" role="search" aria-label="Filter WhatsApp accounts">
        <div className="w-72 max-w-full">
          <FilterInput label="Search" type="search" name="q" defaultValue={filters.q} placeholder="Business, number or WABA ID" />
        </div>
        <FilterSelect
          name="status"
          label="Status"
          value={filters.status}
          all="All statuses"
          options={ACCOUNT_STATUSES.map((s) => [s, ACCOUNT_STATUS_LABELS[s]])}
        />
        <input type="hidden" name="sort" value={filters.sort} />
        <input type="hidden" name="dir" value={filters.dir} />
        <Button type="submit" variant="secondary">
          Apply
        </Button>
        {filtered ? (
          <ButtonLink to="/admin/whatsapp" variant="ghost">
            Clear
          </ButtonLink>
        ) : null}
      </Form>
      {problems.length ? (
        <div className="mt-4">
          <Notice tone="warning">{problems.join(" ")}</Notice>
        </div>
      ) : null}
      <div className="mt-6 rounded-xl border border-slate-200 bg-white shadow-sm">
        <Table
          caption="WhatsApp accounts"
          columns={columns(now)}
          rows={accounts}
          rowKey={(a) => a.id}
          searchParams={searchParams}
          empty={filtered ? "No WhatsApp account matches these filters." : "No organisation has connected a WhatsApp account yet."}
        />
      </div>
      {next || previous ? (
        <Pager searchParams={searchParams} newer={previous} older={next} label="WhatsApp account pages" order={accountOrder} />
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
