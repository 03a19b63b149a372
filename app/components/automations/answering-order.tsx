import { Badge } from "~/components/ui/badge";
import { Card, CardHeader } from "~/components/ui/card";
import { m } from "~/paraglide/messages";

/** Which of the answering steps are turned on (the consent words and a person always are). */
export interface AnsweringSteps {
  rules: boolean;
  welcome: boolean;
  away: boolean;
  assistant: boolean;
  /** The welcome greets a customer back after this many days of silence. */
  welcomeAgainDays: number;
}

/**
 * The order automations answer a customer's message in (decision 113), so a business sees what
 * answers first: the first step that applies answers, each shown on or off.
 */
export function AnsweringOrder({ steps }: { steps: AnsweringSteps }) {
  const always = m.automations_order_always();
  const state = (on: boolean) => (on ? m.automations_on() : m.automations_off());
  const rows: { key: string; text: string; state: string; on: boolean }[] = [
    { key: "consent", text: m.automations_order_consent(), state: always, on: true },
    { key: "rules", text: m.automations_order_rules(), state: state(steps.rules), on: steps.rules },
    { key: "welcome", text: m.automations_order_welcome({ days: steps.welcomeAgainDays }), state: state(steps.welcome), on: steps.welcome },
    { key: "away", text: m.automations_order_away(), state: state(steps.away), on: steps.away },
    { key: "assistant", text: m.automations_order_assistant(), state: state(steps.assistant), on: steps.assistant },
    { key: "person", text: m.automations_order_person(), state: always, on: true },
  ];
  return (
    <Card aria-labelledby="answering-order">
      <CardHeader id="answering-order" title={m.automations_order_title()} description={m.automations_order_description()} />
      <ol className="mt-3 list-decimal space-y-2 pl-5 text-sm text-slate-700">
        {rows.map((row) => (
          <li key={row.key} data-step={row.key} className="break-words">
            <span className="mr-2">{row.text}</span>
            <Badge tone={row.on ? "success" : "neutral"}>{row.state}</Badge>
          </li>
        ))}
      </ol>
    </Card>
  );
}
