import type { ReactNode } from "react";
import { Form } from "react-router";
import { Card } from "~/components/ui/card";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { CheckboxField } from "~/components/ui/field";
import { Notice } from "~/components/ui/notice";
import { formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/**
 * The switch that makes a pending Shopify order ask its customer to pay by M-Pesa (decision 142): one
 * plain form (`intent=ask-payment`), for owners and admins; read only for the others.
 */
export function AskPaymentForm({ on, canManage, needsScope }: { on: boolean; canManage: boolean; needsScope: boolean }) {
  return (
    <Card as="section" aria-labelledby="shopify-pay" data-ask-payment={on ? "on" : "off"}>
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="shopify-pay" className="font-semibold">
          {m.shopify_pay_title()}
        </h2>
        <Badge tone={on ? "success" : "neutral"}>{on ? m.shopify_on() : m.shopify_off()}</Badge>
      </div>
      <p className="mt-1 text-sm text-slate-600">{m.shopify_pay_help()}</p>
      {needsScope ? (
        <div id="shopify-pay-scope" className="mt-3">
          <Notice tone="warning">{m.shopify_pay_needs_scope()}</Notice>
        </div>
      ) : null}
      <Form method="post" className="mt-4 space-y-4">
        <fieldset disabled={!canManage || needsScope} aria-describedby={needsScope ? "shopify-pay-scope" : undefined} className="space-y-4">
          <CheckboxField label={m.shopify_pay_enabled()} name="askPayment" defaultChecked={on} />
          {canManage ? (
            <Button type="submit" size="sm" name="intent" value="ask-payment" aria-label={m.shopify_pay_save_label()}>
              {m.shopify_save()}
            </Button>
          ) : null}
        </fieldset>
      </Form>
    </Card>
  );
}

interface ImportView {
  state: "queued" | "running" | "done" | "failed" | null;
  requestedAt: string | null;
  finishedAt: string | null;
  words: string | null;
}

/**
 * The shop's products into Jumbe's catalogue (decisions 142, 147): one button (`intent=import-products`)
 * that queues the import, for those who manage the shop; the latest import's state and result as the
 * database has them (so every instance shows the same), disabled while one runs or the shop lacks read_products.
 */
export function ImportProductsForm(props: { importedAt: string | null; latest: ImportView; canImport: boolean; needsScope: boolean }) {
  const { importedAt, latest, canImport, needsScope } = props;
  const busy = latest.state === "queued" || latest.state === "running";
  return (
    <Card as="section" aria-labelledby="shopify-products" data-import={latest.state ?? "none"}>
      <h2 id="shopify-products" className="font-semibold">
        {m.shopify_products_title()}
      </h2>
      <p className="mt-1 text-sm text-slate-600">{m.shopify_products_help()}</p>
      {importedAt ? (
        <p className="mt-2 text-sm text-slate-700">{m.shopify_products_imported_at({ when: formatWhen(importedAt) })}</p>
      ) : null}
      {busy && latest.requestedAt ? (
        <div className="mt-3">
          <Notice>{m.shopify_products_running({ when: formatWhen(latest.requestedAt) })}</Notice>
        </div>
      ) : latest.words && latest.finishedAt ? (
        <div className="mt-3 text-sm" data-import-result>
          <p className="font-medium text-slate-700">{m.shopify_products_last({ when: formatWhen(latest.finishedAt) })}</p>
          <p className="break-words text-slate-700">{latest.words}</p>
        </div>
      ) : null}
      {needsScope ? (
        <div id="shopify-products-scope" className="mt-3">
          <Notice tone="warning">{m.shopify_products_needs_scope()}</Notice>
        </div>
      ) : null}
      {canImport ? (
        <Form method="post" className="mt-4">
          <Button
            type="submit"
            size="sm"
            name="intent"
            value="import-products"
            variant="secondary"
            disabled={needsScope || busy}
            aria-describedby={needsScope ? "shopify-products-scope" : undefined}
          >
            {m.shopify_products_import()}
          </Button>
        </Form>
      ) : null}
    </Card>
  );
}

/**
 * A shop connected before Jumbe asked for write_orders and read_products (decision 147): which feature
 * needs which, and the connect flow again (children: the integrations page's own connect form, to Shopify's approval).
 */
export function ReconnectNotice({ missing, canConnect, children }: { missing: string[]; canConnect: boolean; children: ReactNode }) {
  return (
    <Card as="section" aria-labelledby="shopify-scopes" data-missing-scopes={missing.join(" ")}>
      <h2 id="shopify-scopes" className="font-semibold">
        {m.shopify_scope_title()}
      </h2>
      <p className="mt-1 text-sm text-slate-600">{m.shopify_scope_intro()}</p>
      <ul className="mt-2 list-disc space-y-1 ps-5 text-sm break-words text-slate-700">
        {missing.includes("write_orders") ? <li>{m.shopify_scope_write_orders()}</li> : null}
        {missing.includes("read_products") ? <li>{m.shopify_scope_read_products()}</li> : null}
      </ul>
      {canConnect ? <div className="mt-4">{children}</div> : <p className="mt-2 text-sm text-slate-600">{m.shopify_scope_ask_admin()}</p>}
    </Card>
  );
}
