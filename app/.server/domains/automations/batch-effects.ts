import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";
import { queueRuleWebhook } from "./call-webhook";
import type { RuleAction } from "./rules-cache";

/**
 * A batch of rule answers' effects (tags, fields, the rules' figures) folded into a few statements
 * at the end of the replies' transaction (decision 078): the contact rows and a rule's figures (one
 * hot row for every message it answers) are locked for the commit only, not from a batch's first
 * answer to its last, so the webhook batches that upsert the same contacts do not wait behind them.
 */
export interface FiredRule {
  ruleId: string;
  contactId: string;
  organizationId: string;
  runId: string;
  actions: readonly RuleAction[];
}

/** A contact's tag and field changes, in effect as one: added, then removed, then its fields merged. */
export interface ContactChange {
  add: string[];
  remove: string[];
  fields: Record<string, string | number | boolean>;
}

/**
 * Folds each contact's changes in the order the rules fired: a tag one rule adds and a later one
 * removes is gone, one removed then added back is kept, and a later rule's value for a field wins.
 * As one change: tags = (tags ∪ add) − remove.
 */
export function foldContactChanges(fired: readonly FiredRule[]): Map<string, ContactChange> {
  const changes = new Map<string, { add: Set<string>; remove: Set<string>; fields: ContactChange["fields"] }>();
  for (const { contactId, actions } of fired) {
    for (const action of actions) {
      if (action.type !== "tags" && action.type !== "field") continue;
      let change = changes.get(contactId);
      if (!change) changes.set(contactId, (change = { add: new Set(), remove: new Set(), fields: {} }));
      if (action.type === "field") {
        change.fields[action.key] = action.value;
        continue;
      }
      for (const tag of action.add) {
        change.remove.delete(tag);
        change.add.add(tag);
      }
      for (const tag of action.remove) {
        change.add.delete(tag);
        change.remove.add(tag);
      }
    }
  }
  return new Map([...changes].map(([id, c]) => [id, { add: [...c.add].sort(), remove: [...c.remove].sort(), fields: c.fields }]));
}

/** How often each rule fired in the batch. */
export function countFirings(fired: readonly FiredRule[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { ruleId } of fired) counts.set(ruleId, (counts.get(ruleId) ?? 0) + 1);
  return counts;
}

/**
 * The batch's effects in `tx`: the rules' webhooks queued (one job a run), then, last, every contact's
 * change in one statement and every rule's figures in one, each locking its rows in id order (two
 * batches side by side take them in the same order).
 */
export async function applyFiredRules(tx: Executor, fired: readonly FiredRule[]) {
  if (!fired.length) return;
  for (const { organizationId, runId, actions } of fired)
    for (const action of actions) if (action.type === "webhook") await queueRuleWebhook(tx, { organizationId, runId, url: action.url });
  const contacts = [...foldContactChanges(fired)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (contacts.length) {
    const rows = JSON.stringify(contacts.map(([id, c]) => ({ id, add: c.add, remove: c.remove, fields: c.fields })));
    await tx.execute(sql`
      with change as (select * from jsonb_to_recordset(${rows}::jsonb) as x(id uuid, add text[], remove text[], fields jsonb)),
           locked as (select c.id from contacts c join change using (id) order by c.id for update of c)
      update contacts c
      set tags = array(select distinct t from unnest(array_cat(c.tags, change.add)) t where t <> all(change.remove) order by t),
          attributes = c.attributes || change.fields,
          updated_at = now()
      from change
      where c.id = change.id and c.id in (select id from locked)`);
  }
  const rules = [...countFirings(fired)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  await tx.execute(sql`
    with fired as (select * from unnest(${sql.param(rules.map(([id]) => id))}::uuid[], ${sql.param(rules.map(([, n]) => n))}::int[]) as t(id, n)),
         locked as (select r.id from automation_rules r join fired using (id) order by r.id for update of r)
    update automation_rules r set fired_count = r.fired_count + fired.n, last_fired_at = now()
    from fired where r.id = fired.id and r.id in (select id from locked)`);
}
