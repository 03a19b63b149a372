import { href } from "react-router";
import { Card, CardHeader } from "~/components/ui/card";
import { SummaryList } from "~/components/ui/summary";
import { TextLink } from "~/components/ui/text-link";
import { formatNumber } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { m } from "~/paraglide/messages";

export interface AssistantBillingUsage {
  replies: number;
  handovers: number;
  promptTokens: number;
  completionTokens: number;
  costCents: number;
  capCents: number;
}

/** The AI assistant's use this month (replies, tokens, its cost against the cap): shown once it is configured or used. */
export function AssistantUsageCard({ usage }: { usage: AssistantBillingUsage }) {
  return (
    <Card aria-labelledby="assistant-usage-title">
      <CardHeader id="assistant-usage-title" title={m.billing_assistant_title()} description={m.billing_assistant_description()} />
      <div className="mt-3">
        <SummaryList
          items={[
            { label: m.automations_assistant_usage_replies(), value: formatNumber(usage.replies) },
            { label: m.automations_assistant_usage_handovers(), value: formatNumber(usage.handovers) },
            { label: m.automations_assistant_usage_tokens(), value: formatNumber(usage.promptTokens + usage.completionTokens) },
            {
              label: m.automations_assistant_usage_cost(),
              value: usage.capCents
                ? m.automations_assistant_usage_of_cap({ cost: formatKes(usage.costCents), cap: formatKes(usage.capCents) })
                : m.automations_assistant_usage_no_cap({ cost: formatKes(usage.costCents) }),
            },
          ]}
        />
      </div>
      <p className="mt-3 text-sm">
        <TextLink to={href("/automations/assistant")}>{m.automations_assistant_card_link()}</TextLink>
      </p>
    </Card>
  );
}
