import { Form, useSearchParams } from "react-router";
import type { Route } from "./+types/whatsapp";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
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
import { m } from "~/paraglide/messages";

export const meta: Route.MetaFunction = () => [{ title: m.admin_title({ page: m.admin_whatsapp_accounts() }) }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
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
      header: m.admin_column_business(),
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
      header: m.admin_whatsapp_column_number(),
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
          <span className="text-slate-500">{m.admin_whatsapp_none()}</span>
        ),
    },
    { key: "waba", header: "WABA ID", sortable: true, cell: (a) => <span className="font-mono text-xs">{a.wabaId}</span> },
    {
      key: "status",
      header: m.admin_column_status(),
      cell: (a) => <Badge tone={STATUS_TONE[a.status]}>{ACCOUNT_STATUS_LABELS[a.status]}</Badge>,
    },
    {
      key: "quality",
      header: m.admin_whatsapp_column_quality(),
      cell: (a) => (a.numbers.length ? a.numbers.map((n) => qualityWords(n.quality)).join(", ") : "—"),
      hideOnPhone: true,
    },
    {
      key: "tier",
      header: m.admin_whatsapp_column_tier(),
      cell: (a) => (a.numbers.length ? a.numbers.map((n) => tierWords(n.messagingLimit)).join(", ") : "—"),
      hideOnPhone: true,
    },
    {
      key: "messages",
      header: m.admin_messages_this_month(),
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
              {a.lastWebhookAt ? m.admin_whatsapp_webhook_last({ when: formatWhen(a.lastWebhookAt) }) : m.admin_whatsapp_nothing_received()}
            </span>
          </>
        );
      },
      hideOnPhone: true,
    },
    { key: "api", header: m.admin_whatsapp_api_version(), cell: (a) => a.apiVersion, hideOnPhone: true },
    {
      key: "connected",
      header: m.admin_whatsapp_connected_since(),
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
      <PageTitle>{m.admin_whatsapp_accounts()}</PageTitle>
      <p className="mt-1 text-slate-600">{m.admin_whatsapp_intro()}</p>
      <Form method="get" className="mt-6 flex flex-wrap items-end gap-3" role="search" aria-label={m.admin_whatsapp_filter()}>
        <div className="w-72 max-w-full">
          <FilterInput
            label={m.admin_search_title()}
            type="search"
            name="q"
            defaultValue={filters.q}
            placeholder={m.admin_whatsapp_search_placeholder()}
          />
        </div>
        <FilterSelect
          name="status"
          label={m.admin_column_status()}
          value={filters.status}
          all={m.admin_all_statuses()}
          options={ACCOUNT_STATUSES.map((s) => [s, ACCOUNT_STATUS_LABELS[s]])}
        />
        <input type="hidden" name="sort" value={filters.sort} />
        <input type="hidden" name="dir" value={filters.dir} />
        <Button type="submit" variant="secondary">
          {m.admin_apply()}
        </Button>
        {filtered ? (
          <ButtonLink to="/admin/whatsapp" variant="ghost">
            {m.admin_clear()}
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
          caption={m.admin_whatsapp_accounts()}
          columns={columns(now)}
          rows={accounts}
          rowKey={(a) => a.id}
          searchParams={searchParams}
          empty={filtered ? m.admin_whatsapp_empty_filtered() : m.admin_whatsapp_empty()}
        />
      </div>
      {next || previous ? (
        <Pager searchParams={searchParams} newer={previous} older={next} label={m.admin_whatsapp_pages()} order={accountOrder} />
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
