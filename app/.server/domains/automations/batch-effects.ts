import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { enqueueJob } from "../../infrastructure/jobs/queue";
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

/** The job that folds the changes kept for busy contacts into them (CONTACT_CHANGES_QUEUE). */
export const CONTACT_CHANGES_QUEUE = "automations.contact-changes";

/**
 * The batch's effects in `tx`: the rules' webhooks queued (one job a run), then, last, every contact's
 * change in one statement and every rule's figures in one, each locking its rows in id order (two
 * batches side by side take them in the same order).
 *
 * A contact's row another transaction holds (a webhook batch storing the person's next message) is
 * not waited for: its change is kept in automation_contact_changes, as is any change for a contact
 * that already has some kept (so they apply in the order the rules fired), and a job folds them in
 * moments later. The reply's transaction thus never queues behind the intake, nor the intake behind it.
 */
export async function applyFiredRules(tx: Executor, fired: readonly FiredRule[]) {
  if (!fired.length) return;
  for (const { organizationId, runId, actions } of fired)
    for (const action of actions) if (action.type === "webhook") await queueRuleWebhook(tx, { organizationId, runId, url: action.url });
  const organizationOf = new Map(fired.map((f) => [f.contactId, f.organizationId]));
  const contacts = [...foldContactChanges(fired)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (contacts.length) {
    const rows = JSON.stringify(
      contacts.map(([id, c]) => ({ id, organization_id: organizationOf.get(id), add: c.add, remove: c.remove, fields: c.fields })),
    );
    const kept = await queryRows<{ contact_id: string }>(
      tx,
      sql`
      with change as (select * from jsonb_to_recordset(${rows}::jsonb) as x(id uuid, organization_id uuid, add text[], remove text[], fields jsonb)),
           queued as (select distinct k.contact_id from automation_contact_changes k join change on change.id = k.contact_id),
           locked as (select c.id from contacts c join change using (id)
                      where c.id not in (select contact_id from queued)
                      order by c.id for no key update of c skip locked),
           applied as (
             update contacts c
             set tags = array(select distinct t from unnest(array_cat(c.tags, change.add)) t where t <> all(change.remove) order by t),
                 attributes = c.attributes || change.fields,
                 updated_at = now()
             from change
             where c.id = change.id and c.id in (select id from locked)
             returning c.id)
      insert into automation_contact_changes (organization_id, contact_id, add, remove, fields)
      select change.organization_id, change.id, change.add, change.remove, change.fields from change
      where change.id not in (select id from applied)
        -- A contact erased meanwhile: nothing to change.
        and exists (select 1 from contacts c where c.id = change.id)
      returning contact_id`,
    );
    if (kept.length) await enqueueJob(CONTACT_CHANGES_QUEUE, {}, { executor: tx, uniqueKey: CONTACT_CHANGES_QUEUE });
  }
  const rules = [...countFirings(fired)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  await tx.execute(sql`
    with fired as (select * from unnest(${sql.param(rules.map(([id]) => id))}::uuid[], ${sql.param(rules.map(([, n]) => n))}::int[]) as t(id, n)),
         locked as (select r.id from automation_rules r join fired using (id) order by r.id for no key update of r)
    update automation_rules r set fired_count = r.fired_count + fired.n, last_fired_at = now()
    from fired where r.id = fired.id and r.id in (select id from locked)`);
}

/** Contacts whose kept changes one run folds. */
const FOLD_CONTACTS = 200;

/**
 * Folds the kept changes into their contacts, each contact's in the order they fired (tags = (tags ∪
 * add) − remove, then fields merged, change by change). A contact is locked before its changes are
 * read, so two runs never fold the same change; contacts still busy are left for the next run.
 * Answers how many changes are still kept.
 */
export async function foldKeptContactChanges(tx: Executor): Promise<number> {
  const waiting = await queryRows<{ contact_id: string }>(
    tx,
    sql`select contact_id from automation_contact_changes group by contact_id order by min(id) limit ${FOLD_CONTACTS}`,
  );
  if (!waiting.length) return 0;
  const current = await queryRows<{ id: string; tags: string[] }>(
    tx,
    sql`select id, tags from contacts where id = any(${sql.param(waiting.map((w) => w.contact_id).sort())}::uuid[])
        order by id for no key update skip locked`,
  );
  if (current.length) {
    // Read after the locks: every change committed for these contacts so far, none folded by another run.
    const kept = await queryRows<{ id: string; contact_id: string; add: string[]; remove: string[]; fields: ContactChange["fields"] }>(
      tx,
      sql`select id::text, contact_id, add, remove, fields from automation_contact_changes
          where contact_id = any(${sql.param(current.map((c) => c.id))}::uuid[]) order by id`,
    );
    const next = new Map(current.map((c) => [c.id, { tags: new Set(c.tags), fields: {} as ContactChange["fields"] }]));
    for (const change of kept) {
      const contact = next.get(change.contact_id)!;
      for (const tag of change.add) contact.tags.add(tag);
      for (const tag of change.remove) contact.tags.delete(tag);
      Object.assign(contact.fields, change.fields);
    }
    const rows = JSON.stringify([...next].map(([id, c]) => ({ id, tags: [...c.tags].sort(), fields: c.fields })));
    await tx.execute(sql`
      update contacts c set tags = x.tags, attributes = c.attributes || x.fields, updated_at = now()
      from jsonb_to_recordset(${rows}::jsonb) as x(id uuid, tags text[], fields jsonb)
      where c.id = x.id`);
    await tx.execute(sql`delete from automation_contact_changes where id = any(${sql.param(kept.map((k) => k.id))}::bigint[])`);
  }
  const [left] = await queryRows<{ n: number }>(tx, sql`select count(*)::int as n from automation_contact_changes`);
  return left?.n ?? 0;
}

/**
 * CONTACT_CHANGES_QUEUE's job: folds, and while changes are left (their contacts were busy) queues
 * itself again a second later, under the other of two keys (its own is still pending until it commits).
 */
export async function runContactChangesJob(tx: Executor, payload: { later?: boolean }) {
  const left = await foldKeptContactChanges(tx);
  if (left > 0)
    await enqueueJob(CONTACT_CHANGES_QUEUE, payload.later ? {} : { later: true }, {
      executor: tx,
      delayMs: 1000,
      uniqueKey: payload.later ? CONTACT_CHANGES_QUEUE : `${CONTACT_CHANGES_QUEUE}:later`,
    });
}
