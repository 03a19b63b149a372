import { data, href } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/order";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { getOrder } from "~/.server/domains/shop";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { Card, CardHeader } from "~/components/ui/card";
import { orderStatusWords } from "~/components/shop/shop-words";
import { formatWhen } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// One order: its customer, items, total, note and status, with the chat it came from.
export const handle: PermissionHandle & PageHandle = { permission: "shop:view", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.shop_order_meta_title() }];

/** Another organisation's order, or no order at all, is not found. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const order = await getOrder(current.organization.id, args.params.id);
  if (!order) throw data(m.shop_order_not_found(), { status: 404 });
  return { order };
}

export default function OrderPage({ loaderData }: Route.ComponentProps) {
  const { order } = loaderData;
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <div>
        <BackLink to={href("/shop/orders")}>{m.shop_back_to_orders()}</BackLink>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">{m.shop_order_title({ when: formatWhen(order.receivedAt) })}</h1>
        <p className="mt-1">
          <Badge status={order.status}>{orderStatusWords(order.status)}</Badge>
        </p>
      </div>
      <Card>
        <CardHeader title={m.shop_order_customer()} />
        <p className="mt-1 break-words">{order.contact ? `${order.contact.name ?? ""} ${order.contact.phone ?? ""}`.trim() || "—" : "—"}</p>
        {order.conversationId ? (
          <Link to={href("/chat/:id", { id: order.conversationId })} className="mt-1 inline-block font-medium text-brand-700 underline">
            {m.shop_order_open_chat()}
          </Link>
        ) : null}
        {order.note ? <p className="mt-2 text-sm break-words text-slate-700">{m.shop_order_note({ note: order.note })}</p> : null}
      </Card>
      <Card padding="none">
        <div className="overflow-x-auto">
          <table className="w-full text-sm">
            <caption className="px-4 pt-4 text-left font-semibold">{m.shop_order_items()}</caption>
            <thead>
              <tr className="text-left text-slate-600">
                <th scope="col" className="px-4 py-2">
                  {m.shop_product_name()}
                </th>
                <th scope="col" className="px-4 py-2 text-right">
                  {m.shop_order_quantity()}
                </th>
                <th scope="col" className="px-4 py-2 text-right">
                  {m.shop_order_unit_price()}
                </th>
                <th scope="col" className="px-4 py-2 text-right">
                  {m.shop_order_line_total()}
                </th>
              </tr>
            </thead>
            <tbody>
              {order.items.map((item, i) => (
                <tr key={i} className="border-t border-slate-100">
                  <td className="px-4 py-2 break-words">
                    {item.name}
                    <span className="block font-mono text-xs text-slate-500">{item.retailerId}</span>
                  </td>
                  <td className="px-4 py-2 text-right tabular-nums">{item.quantity}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatKes(item.unitPriceCents)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatKes(item.quantity * item.unitPriceCents)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr className="border-t border-slate-300 font-semibold">
                <th scope="row" colSpan={3} className="px-4 py-2 text-right">
                  {m.shop_order_total()}
                </th>
                <td className="px-4 py-2 text-right tabular-nums">{formatKes(order.totalCents)}</td>
              </tr>
            </tfoot>
          </table>
        </div>
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
