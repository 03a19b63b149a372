import { href } from "react-router";
import { TextLink } from "~/components/ui/text-link";
import type { SmsFallbackAutomation } from "~/lib/sms-fallback";
import { m } from "~/paraglide/messages";

/**
 * Where an automation's WhatsApp message is set (Settings → Payments, Integrations → Shopify), the way
 * to its SMS fallback (decision 159): a link to its own form on Settings → SMS, shown to those who may
 * open that page.
 */
export function SmsFallbackElsewhere({ automation }: { automation: SmsFallbackAutomation }) {
  return (
    <p className="text-sm text-slate-600" data-testid="sms-fallback-link">
      {m.sms_fallback_elsewhere()}{" "}
      <TextLink to={`${href("/settings/sms")}#fallback-${automation}`}>{m.sms_fallback_elsewhere_link()}</TextLink>
    </p>
  );
}
