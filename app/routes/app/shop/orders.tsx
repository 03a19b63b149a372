import { Form, href } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/orders";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { listOrders, orderCounts, ORDERS_PAGE, type OrderView } from "~/.server/domains/shop";
import { ORDER_STATUSES, type OrderStatus } from "~/lib/shop";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { FilterSelect } from "~/components/ui/field";
import { Table, type Column } from "~/components/ui/table";
import { ShopTabs, orderStatusWords } from "~/components/shop/shop-words";
import { formatWhen } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// The orders customers sent from their WhatsApp cart (decision 138): newest first, by status, as CSV.
export const handle: PermissionHandle & PageHandle = { permission: "shop:view", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.shop_orders_meta_title() }];

const statusOf = (value: string | null): OrderStatus | undefined => ORDER_STATUSES.find((s) => s === value);

/** `?status=` filters; `?before=<receivedAt>~<id>` is the next page (an unreadable one starts again). */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const params = args.url.searchParams;
  const status = statusOf(params.get("status"));
  const [at, id] = (params.get("before") ?? "").split("~");
  const before = at && id && !Number.isNaN(Date.parse(at)) ? { receivedAt: at, id } : undefined;
  const [orders, counts] = await Promise.all([
    listOrders(current.organization.id, { status, before, limit: ORDERS_PAGE + 1 }),
    orderCounts(current.organization.id),
  ]);
  const page = orders.slice(0, ORDERS_PAGE);
  const last = page[page.length - 1];
  return {
    orders: page,
    status: status ?? "",
    counts,
    next: orders.length > ORDERS_PAGE && last ? `${last.receivedAt}~${last.id}` : null,
  };
}

export default function Orders({ loaderData }: Route.ComponentProps) {
  const { orders, status, counts, next } = loaderData;
  const total = Object.values(counts).reduce((a, b) => a + (b ?? 0), 0);
  const csv = `${href("/shop/orders.csv")}${status ? `?status=${status}` : ""}`;
  const columns: Column<OrderView>[] = [
    {
      key: "when",
      header: m.shop_order_received(),
      cell: (o) => (
        <Link to={href("/shop/orders/:id", { id: o.id })} className="font-medium text-brand-700 underline hover:text-brand-900">
          {formatWhen(o.receivedAt)}
        </Link>
      ),
    },
    {
      key: "customer",
      header: m.shop_order_customer(),
      cell: (o) => <span className="break-words">{o.contact ? (o.contact.name ?? o.contact.phone ?? "—") : "—"}</span>,
    },
    {
      key: "items",
      header: m.shop_order_items(),
      cell: (o) => (
        <ul className="text-sm">
          {o.items.map((i, n) => (
            <li key={n} className="break-words">
              {i.quantity} × {i.name}
            </li>
          ))}
        </ul>
      ),
    },
    {
      key: "total",
      header: m.shop_order_total(),
      align: "right",
      cell: (o) => <span className="tabular-nums">{formatKes(o.totalCents)}</span>,
    },
    { key: "status", header: m.shop_order_status(), cell: (o) => <Badge status={o.status}>{orderStatusWords(o.status)}</Badge> },
  ];
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">{m.shop_title()}</h1>
        <p className="text-slate-600">{m.shop_orders_intro()}</p>
      </div>
      <ShopTabs />
      <Card padding="none">
        <div className="flex flex-wrap items-end justify-between gap-3 px-4 pt-4">
          <Form method="get" className="flex flex-wrap items-end gap-2">
            <FilterSelect
              name="status"
              label={m.shop_order_status()}
              value={status}
              all={m.shop_orders_all({ count: total })}
              options={ORDER_STATUSES.map((s) => [s, `${orderStatusWords(s)} (${counts[s] ?? 0})`])}
            />
            <Button type="submit" variant="secondary" size="sm">
              {m.shop_orders_filter()}
            </Button>
          </Form>
          <ButtonLink to={csv} reloadDocument variant="secondary" size="sm">
            {m.shop_orders_csv()}
          </ButtonLink>
        </div>
        <Table caption={m.shop_orders_title()} columns={columns} rows={orders} rowKey={(o) => o.id} empty={m.shop_orders_empty()} />
        {next ? (
          <div className="px-4 pb-4">
            <ButtonLink
              to={`?${new URLSearchParams({ ...(status ? { status } : {}), before: next }).toString()}`}
              variant="secondary"
              size="sm"
            >
              {m.shop_orders_older()}
            </ButtonLink>
          </div>
        ) : null}
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
