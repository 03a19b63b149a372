import { href, useLocation } from "react-router";
import { Tabs } from "~/components/ui/tabs";
import { m } from "~/paraglide/messages";

/** The shop's two pages as tabs: products and orders. */
export function ShopTabs() {
  const { pathname } = useLocation();
  return (
    <Tabs
      label={m.shop_title()}
      items={[
        { label: m.shop_tab_products(), to: href("/shop/products"), current: pathname.startsWith("/shop/products") },
        { label: m.shop_tab_orders(), to: href("/shop/orders"), current: pathname.startsWith("/shop/orders") },
      ]}
    />
  );
}

/** A product's sync state in words. */
export function syncWords(state: string) {
  return state === "synced" ? m.shop_sync_synced() : state === "failed" ? m.shop_sync_failed() : m.shop_sync_pending();
}

/** An order's status in words. */
export function orderStatusWords(status: string) {
  switch (status) {
    case "awaiting_payment":
      return m.shop_order_status_awaiting_payment();
    case "paid":
      return m.shop_order_status_paid();
    case "cancelled":
      return m.shop_order_status_cancelled();
    default:
      return m.shop_order_status_received();
  }
}
