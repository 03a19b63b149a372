import type { ReactNode } from "react";
import { Form, href } from "react-router";
import { ArrowDown, ArrowUp, Pencil, Power, PowerOff, Trash2 } from "~/components/ui/icons";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import type { Column } from "~/components/ui/table";
import type { RuleView } from "~/.server/domains/automations/rules";
import { matchTypeWords } from "~/lib/schemas/automations-rules";
import { formatNumber, formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/** A rule as the list shows it: its number's label and its assignee's name read beside it. */
export interface RuleRow extends RuleView {
  /** Its place in the order, from 1. */
  order: number;
  /** Null: every number. */
  numberLabel: string | null;
  assigneeName: string | null;
  /** A "set a contact field" action's field label (null: the field is gone). */
  fieldLabel: string | null;
  /** The flow it starts, by name. */
  flowName: string | null;
}

const EXCERPT = 80;
const excerpt = (text: string) => {
  const characters = [...text.replace(/\s+/g, " ").trim()];
  return characters.length > EXCERPT ? `${characters.slice(0, EXCERPT - 1).join("")}…` : characters.join("");
};

/** What a rule does, one line an action: its reply's first words, the tags it adds and removes, who it assigns to. */
function RuleDoes({ rule }: { rule: RuleRow }) {
  return (
    <ul className="space-y-0.5">
      {rule.actions.map((action) => {
        if (action.type === "reply")
          return (
            <li key="reply">
              {m.automations_does_reply({ text: excerpt(action.text) })}
              {action.buttons?.length ? (
                <span className="block">{m.automations_does_buttons({ buttons: action.buttons.join(" · ") })}</span>
              ) : null}
              {action.list?.rows.length ? (
                <span className="block">{m.automations_does_list({ button: action.list.button, rows: action.list.rows.join(" · ") })}</span>
              ) : null}
            </li>
          );
        if (action.type === "template")
          return <li key="template">{m.automations_does_template({ name: action.name, language: action.language })}</li>;
        if (action.type === "handover") return <li key="handover">{m.automations_does_handover()}</li>;
        if (action.type === "assistant") return <li key="assistant">{m.automations_does_assistant()}</li>;
        if (action.type === "webhook") return <li key="webhook">{m.automations_does_webhook({ host: new URL(action.url).host })}</li>;
        if (action.type === "field")
          return <li key="field">{m.automations_does_set_field({ field: rule.fieldLabel ?? action.key, value: String(action.value) })}</li>;
        if (action.type === "tags")
          return (
            <li key="tags">
              {action.add.length ? <span className="block">{m.automations_does_add_tags({ tags: action.add.join(", ") })}</span> : null}
              {action.remove.length ? (
                <span className="block">{m.automations_does_remove_tags({ tags: action.remove.join(", ") })}</span>
              ) : null}
            </li>
          );
        if (action.type === "flow") return <li key="flow">{m.automations_does_flow({ name: rule.flowName ?? "" })}</li>;
        if (action.type === "products")
          return (
            <li key="products">
              {action.kind === "catalog_message"
                ? m.automations_does_catalog()
                : m.automations_does_products({ count: action.productIds.length })}
            </li>
          );
        return <li key="assign">{m.automations_does_assign({ name: rule.assigneeName ?? m.automations_former_member() })}</li>;
      })}
    </ul>
  );
}

/** A button of the list that posts one intent about one rule (a form each: they work without JavaScript). */
function RulePost({
  rule,
  intent,
  label,
  fields = {},
  children,
}: {
  rule: RuleRow;
  intent: string;
  label: string;
  fields?: Record<string, string>;
  children: ReactNode;
}) {
  return (
    <Form method="post" className="inline">
      <input type="hidden" name="id" value={rule.id} />
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Button type="submit" name="intent" value={intent} variant="secondary" size="sm" aria-label={label} title={label}>
        {children}
      </Button>
    </Form>
  );
}

/**
 * The rules table's columns, in the order they are tried. Those who may change rules get, on each
 * row, Edit, Move up and down, Turn on or off and Delete (which asks first, `?confirm=delete&rule=<id>`).
 */
export function ruleColumns({ canManage, count }: { canManage: boolean; count: number }): Column<RuleRow>[] {
  const columns: Column<RuleRow>[] = [
    {
      key: "order",
      header: m.automations_column_position(),
      cell: (rule) => <span className="font-medium text-slate-900 tabular-nums">{rule.order}</span>,
    },
    {
      key: "name",
      header: m.automations_column_name(),
      cell: (rule) => (
        <div className="max-w-64 min-w-40">
          <span className="block font-medium break-words text-slate-900">{rule.name}</span>
          <span className="block text-slate-700">
            {m.automations_rule_matches({ match: matchTypeWords(rule.matchType), keywords: rule.keywords.join(", ") })}
          </span>
          <span className="block text-xs text-slate-500">{rule.numberLabel ?? m.automations_all_numbers()}</span>
        </div>
      ),
    },
    {
      key: "does",
      header: m.automations_column_does(),
      cell: (rule) => (
        <div className="max-w-prose min-w-48 text-slate-700">
          <RuleDoes rule={rule} />
        </div>
      ),
    },
    {
      key: "state",
      header: m.automations_column_state(),
      cell: (rule) => <Badge tone={rule.enabled ? "success" : "neutral"}>{rule.enabled ? m.automations_on() : m.automations_off()}</Badge>,
    },
    {
      key: "fired",
      header: m.automations_column_fired(),
      cell: (rule) => (
        <>
          <span className="block tabular-nums">{formatNumber(rule.firedCount)}</span>
          <span className="block text-xs whitespace-nowrap text-slate-500">
            {rule.lastFiredAt ? m.automations_last_fired({ when: formatWhen(rule.lastFiredAt) }) : m.automations_never_fired()}
          </span>
        </>
      ),
    },
  ];
  if (!canManage) return columns;
  columns.push({
    key: "actions",
    header: <span className="sr-only">{m.automations_column_actions()}</span>,
    align: "right",
    cell: (rule) => (
      <div className="flex flex-col items-end gap-1">
        <div className="flex gap-1">
          <ButtonLink
            to={href("/automations/:id", { id: rule.id })}
            variant="secondary"
            size="sm"
            aria-label={m.automations_edit_label({ name: rule.name })}
          >
            <Pencil className="size-4" aria-hidden /> {m.automations_edit()}
          </ButtonLink>
          <ButtonLink
            to={`?confirm=delete&rule=${rule.id}`}
            variant="secondary"
            size="sm"
            aria-label={m.automations_delete_label({ name: rule.name })}
          >
            <Trash2 className="size-4" aria-hidden /> {m.automations_delete()}
          </ButtonLink>
        </div>
        <div className="flex gap-1">
          {rule.order > 1 ? (
            <RulePost rule={rule} intent="move" fields={{ direction: "up" }} label={m.automations_move_up_label({ name: rule.name })}>
              <ArrowUp className="size-4" aria-hidden />
            </RulePost>
          ) : null}
          {rule.order < count ? (
            <RulePost rule={rule} intent="move" fields={{ direction: "down" }} label={m.automations_move_down_label({ name: rule.name })}>
              <ArrowDown className="size-4" aria-hidden />
            </RulePost>
          ) : null}
          {rule.enabled ? (
            <RulePost rule={rule} intent="disable" label={m.automations_turn_off_label({ name: rule.name })}>
              <PowerOff className="size-4" aria-hidden /> {m.automations_turn_off()}
            </RulePost>
          ) : (
            <RulePost rule={rule} intent="enable" label={m.automations_turn_on_label({ name: rule.name })}>
              <Power className="size-4" aria-hidden /> {m.automations_turn_on()}
            </RulePost>
          )}
        </div>
      </div>
    ),
  });
  return columns;
}
