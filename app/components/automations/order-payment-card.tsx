import { Form } from "react-router";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { m } from "~/paraglide/messages";

/**
 * "When a cart arrives, ask for its total by M-Pesa" (issue 76): on or off, one plain post (works
 * without JavaScript); owners and admins change it, everyone sees whether it is on.
 */
export function OrderPaymentCard({ enabled, canManage }: { enabled: boolean; canManage: boolean }) {
  return (
    <Card id="order-payment">
      <CardHeader title={m.automations_order_payment_title()} description={m.automations_order_payment_description()} />
      <p className="mt-3 text-sm text-slate-700">{enabled ? m.automations_order_payment_on() : m.automations_order_payment_off()}</p>
      {canManage ? (
        <Form method="post" className="mt-3">
          <input type="hidden" name="enabled" value={enabled ? "off" : "on"} />
          <Button type="submit" name="intent" value="order-payment" variant="secondary" size="sm">
            {enabled ? m.automations_order_payment_turn_off() : m.automations_order_payment_turn_on()}
          </Button>
        </Form>
      ) : null}
    </Card>
  );
}
