import { Form } from "react-router";
import { Card } from "~/components/ui/card";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { CheckboxField } from "~/components/ui/field";
import { formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/**
 * The switch that makes a pending Shopify order ask its customer to pay by M-Pesa (decision 142): one
 * plain form (`intent=ask-payment`), for owners and admins; read only for the others.
 */
export function AskPaymentForm({ on, canManage }: { on: boolean; canManage: boolean }) {
  return (
    <Card as="section" aria-labelledby="shopify-pay" data-ask-payment={on ? "on" : "off"}>
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="shopify-pay" className="font-semibold">
          {m.shopify_pay_title()}
        </h2>
        <Badge tone={on ? "success" : "neutral"}>{on ? m.shopify_on() : m.shopify_off()}</Badge>
      </div>
      <p className="mt-1 text-sm text-slate-600">{m.shopify_pay_help()}</p>
      <Form method="post" className="mt-4 space-y-4">
        <fieldset disabled={!canManage} className="space-y-4">
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

/** The shop's products into Jumbe's catalogue (decision 142): one button (`intent=import-products`), for those who manage the shop. */
export function ImportProductsForm({ importedAt, canImport }: { importedAt: string | null; canImport: boolean }) {
  return (
    <Card as="section" aria-labelledby="shopify-products">
      <h2 id="shopify-products" className="font-semibold">
        {m.shopify_products_title()}
      </h2>
      <p className="mt-1 text-sm text-slate-600">{m.shopify_products_help()}</p>
      {importedAt ? (
        <p className="mt-2 text-sm text-slate-700">{m.shopify_products_imported_at({ when: formatWhen(importedAt) })}</p>
      ) : null}
      {canImport ? (
        <Form method="post" className="mt-4">
          <Button type="submit" size="sm" name="intent" value="import-products" variant="secondary">
            {m.shopify_products_import()}
          </Button>
        </Form>
      ) : null}
    </Card>
  );
}
