import type { Route } from "./+types/orders-csv";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { csvRow } from "~/.server/domains/activity";
import { listOrders } from "~/.server/domains/shop";
import { ORDER_STATUSES } from "~/.server/infrastructure/db/schema";
import { csvDownload } from "~/.server/infrastructure/http/download";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import type { PermissionHandle } from "~/lib/permissions";

export const handle: PermissionHandle = { permission: "shop:view", signInReturnsTo: "/shop/orders" };

/** The most orders one download holds (newest first). */
const CSV_MAX = 10_000;

/** GET /shop/orders.csv: the orders page's filter as a formula-safe CSV, one line per item. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  const status = ORDER_STATUSES.find((s) => s === args.url.searchParams.get("status"));
  const orders = await listOrders(current.organization.id, { status, limit: CSV_MAX });
  let body = csvRow([
    "order_id",
    "received_at",
    "status",
    "customer",
    "phone",
    "sku",
    "product",
    "quantity",
    "unit_price_kes",
    "line_total_kes",
    "order_total_kes",
    "note",
  ]);
  for (const o of orders)
    for (const i of o.items)
      body += csvRow([
        o.id,
        o.receivedAt,
        o.status,
        o.contact?.name ?? "",
        o.contact?.phone ?? "",
        i.retailerId,
        i.name,
        i.quantity,
        (i.unitPriceCents / 100).toFixed(2),
        ((i.quantity * i.unitPriceCents) / 100).toFixed(2),
        (o.totalCents / 100).toFixed(2),
        o.note,
      ]);
  return csvDownload(`jumbe-orders${status ? `-${status}` : ""}.csv`, body);
}

export function action() {
  return methodNotAllowed("GET");
}
