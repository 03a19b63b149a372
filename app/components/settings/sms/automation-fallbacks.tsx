import { Form } from "react-router";
import type { AutomationFallbackSetting } from "~/.server/domains/sms";
import { SmsFallbackFields } from "~/components/campaigns/sms-fallback-fields";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { FALLBACK_AFTER_DEFAULT, SMS_FALLBACK_AUTOMATIONS, type FallbackMode, type SmsFallbackAutomation } from "~/lib/sms-fallback";
import { m } from "~/paraglide/messages";

const NAMES: Record<SmsFallbackAutomation, () => string> = {
  payment_request: () => m.sms_auto_fallback_payment_request(),
  shopify_order_created: () => m.sms_auto_fallback_shopify_order_created(),
  shopify_order_fulfilled: () => m.sms_auto_fallback_shopify_order_fulfilled(),
  shopify_checkout_abandoned: () => m.sms_auto_fallback_shopify_checkout_abandoned(),
};

const PLACES = { one: "{{1}}", two: "{{2}}", three: "{{3}}", four: "{{4}}", five: "{{5}}" };

const DESCRIPTIONS: Record<SmsFallbackAutomation, () => string> = {
  payment_request: () => m.sms_auto_fallback_payment_request_hint(PLACES),
  shopify_order_created: () => m.sms_auto_fallback_shopify_hint(PLACES),
  shopify_order_fulfilled: () => m.sms_auto_fallback_shopify_hint(PLACES),
  shopify_checkout_abandoned: () => m.sms_auto_fallback_shopify_hint(PLACES),
};

/**
 * Settings → SMS, shown while SMS is connected: for each automation that sends a template outside the
 * 24-hour window, the campaign form's SMS fallback fields (decision 159), one form each (no JavaScript needed).
 */
export function AutomationFallbacks({
  settings,
  failed,
}: {
  settings: AutomationFallbackSetting[];
  /** The form just refused: its automation, what was posted and why. */
  failed?: { automation: string; mode: string; text: string; after: string; error: string } | null;
}) {
  return (
    <Card>
      <CardHeader title={m.sms_auto_fallback_title()} description={m.sms_auto_fallback_description()} />
      <div className="mt-4 divide-y divide-slate-200">
        {SMS_FALLBACK_AUTOMATIONS.map((automation) => {
          const set = settings.find((s) => s.automation === automation);
          const mine = failed?.automation === automation ? failed : null;
          const values = mine
            ? { smsFallback: asMode(mine.mode), smsText: mine.text, smsAfter: mine.after }
            : {
                smsFallback: asMode(set?.mode ?? "off"),
                smsText: set?.text ?? "",
                smsAfter: String(set?.afterMinutes ?? FALLBACK_AFTER_DEFAULT),
              };
          return (
            <Form key={automation} method="post" className="space-y-3 py-4" id={`fallback-${automation}`}>
              <input type="hidden" name="intent" value="fallback" />
              <input type="hidden" name="automation" value={automation} />
              <SmsFallbackFields
                id={`sms-fallback-${automation}`}
                values={values}
                error={mine?.error}
                legend={NAMES[automation]()}
                description={DESCRIPTIONS[automation]()}
              />
              <Button type="submit" variant="secondary">
                {m.sms_auto_fallback_save()}
              </Button>
            </Form>
          );
        })}
      </div>
    </Card>
  );
}

const asMode = (mode: string): FallbackMode => (mode === "own" || mode === "message" ? mode : "off");
