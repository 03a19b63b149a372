import { Form } from "react-router";
import type { PaymentTemplateState } from "~/.server/domains/payments";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { SmsFallbackElsewhere } from "~/components/settings/sms/fallback-elsewhere";
import { languageLabel, templateStatusLabel, templateStatusTone } from "~/lib/templates";
import { m } from "~/paraglide/messages";

/**
 * Outside the 24-hour window a payment request goes as Jumbe's payment template (decision 140):
 * where each language's translation stands at Meta, and the button that submits the missing ones.
 */
export function PaymentTemplateCard({
  states,
  canManage,
  canSetSmsFallback,
}: {
  states: PaymentTemplateState[];
  canManage: boolean;
  canSetSmsFallback: boolean;
}) {
  const missing = states.length < 3;
  return (
    <Card>
      <CardHeader title={m.settings_payments_template_title()} description={m.settings_payments_template_description()} />
      {states.length ? (
        <ul className="mt-3 space-y-2" data-testid="payment-template">
          {states.map((state) => (
            <li key={state.language} className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
              <span>{languageLabel(state.language)}</span>
              <Badge tone={templateStatusTone(state.status)}>{templateStatusLabel(state.status)}</Badge>
              {state.reason && state.status !== "approved" ? <span className="break-words text-slate-500">{state.reason}</span> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-3 text-sm text-slate-600">{m.settings_payments_template_none()}</p>
      )}
      {canSetSmsFallback ? (
        <div className="mt-3">
          <SmsFallbackElsewhere automation="payment_request" />
        </div>
      ) : null}
      {canManage && missing ? (
        <Form method="post" className="mt-4">
          <Button type="submit" name="intent" value="template">
            {m.settings_payments_template_create()}
          </Button>
        </Form>
      ) : null}
    </Card>
  );
}
