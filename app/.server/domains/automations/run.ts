import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRow } from "../../infrastructure/db/query";
import type { Job } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { isRefusal } from "../../infrastructure/refusal";
import { queueMessage } from "../messaging/queue";
import { firstMatchingRule } from "./match";
import { assistantAnswer, assistantAnswersOn } from "./assistant/answer";
import { isOpenAt } from "./hours";
import { automationsOf, type LoadedRule, type RuleAction } from "./rules-cache";
import type { Answer, AutomationInbound } from "./answer";
import type { OutboundContent } from "../messaging/content";
import { handOver } from "./handover";
import { queueRuleWebhook } from "./call-webhook";
import { flowAnswer, startFlowAnswer } from "./flows/answer";

/**
 * Automations answer customers' messages (issue 44): a keyword rule's actions, else a welcome for a
 * first message ever, else an away message outside business hours. The webhook's transaction queues a
 * job for each new customer message of an organisation that has automations (so a crash loses none);
 * the job decides and acts once (a run row per message, unique, written in the reply's own
 * transaction). Nothing Jumbe sends is an inbound message, so nothing an automation sends can set one
 * off; a person holding the conversation silences them all.
 */
export const AUTOMATION_QUEUE = "automations.inbound";

/** Automated replies one conversation may get in an hour, and one business number may send. */
export const CONVERSATION_HOURLY_CAP = 10;
export const NUMBER_HOURLY_CAP = 1000;
/** The away message: at most once a conversation in this many hours. */
export const AWAY_EVERY_HOURS = 24;

/** The kinds of customer message automations read: what they wrote or tapped. */
const READ_TYPES = new Set(["text", "button", "interactive"]);

export interface AutomationPayload {
  organizationId: string;
  messageId: string;
}

/**
 * In the webhook's transaction: a job for each new customer message an automation may answer. A
 * consent keyword (STOP, ACHA…) is answered by the consent ledger alone: it always wins.
 */
export async function enqueueAutomations(
  tx: Executor,
  inserted: readonly { id: string; organization_id: string; message_type: string; contact_id: string | null }[],
  consentKeywords: ReadonlySet<string>,
) {
  const candidates = inserted.filter((m) => m.contact_id && READ_TYPES.has(m.message_type) && !consentKeywords.has(m.id));
  if (!candidates.length) return;
  // One statement for the whole webhook batch: the organisations with automations get a job a message.
  await tx.execute(sql`
    insert into jobs (queue, payload, run_at, priority, unique_key)
    select ${AUTOMATION_QUEUE}, jsonb_build_object('organizationId', t.o, 'messageId', t.m), now(), 0, 'automation:' || t.m
    from unnest(${sql.param(candidates.map((m) => m.organization_id))}::uuid[], ${sql.param(candidates.map((m) => m.id))}::uuid[]) as t(o, m)
    where exists (select 1 from automation_settings s where s.organization_id = t.o
                    and (s.welcome_enabled or s.away_enabled
                         or exists (select 1 from automation_rules r where r.organization_id = t.o and r.enabled)
                         or exists (select 1 from assistant_settings a where a.organization_id = t.o and a.enabled)))
       -- A customer in a flow: their answer is the flow's, whatever the rules are now.
       or exists (select 1 from flow_sessions f where f.organization_id = t.o and f.status = 'active')
    on conflict (unique_key) where finished_at is null and failed_at is null do nothing`);
}

/** The customer's message as automations read it, with what decides whether they may answer at all. */
interface Inbound extends AutomationInbound {
  /** A person holds the conversation: every automation stays silent. */
  held: boolean;
  /** A run for this message exists already (a retried job). */
  ran: boolean;
}

/** The customer's message and what decides its answer; null when it is not one to answer. */
async function inboundOf(payload: AutomationPayload): Promise<Inbound | null> {
  const row = await queryRow<{
    id: string;
    body: string;
    message_type: string;
    payload: unknown;
    phone_number_id: string;
    contact_id: string;
    phone: string | null;
    conversation_id: string;
    time_zone: string;
    locale: string | null;
    held: boolean;
    first_ever: boolean;
    ran: boolean;
  }>(
    db(),
    sql`
    select m.id, m.body, m.message_type, m.payload, m.phone_number_id, m.contact_id, c.phone, v.id as conversation_id, o.time_zone,
           coalesce(c.language, o.default_locale) as locale, v.person_held_at is not null as held,
           not exists (select 1 from messages p where p.organization_id = m.organization_id and p.contact_id = m.contact_id
                         and p.direction = 'inbound' and p.seq < m.seq) as first_ever,
           exists (select 1 from automation_runs r where r.message_id = m.id) as ran
    from messages m
    join contacts c on c.id = m.contact_id
    join conversations v on v.organization_id = m.organization_id and v.phone_number_id = m.phone_number_id and v.contact_id = m.contact_id
    join organizations o on o.id = m.organization_id
    where m.id = ${payload.messageId} and m.organization_id = ${payload.organizationId} and m.direction = 'inbound'`,
  );
  if (!row || !row.phone) return null;
  return {
    organizationId: payload.organizationId,
    id: row.id,
    body: row.body,
    messageType: row.message_type,
    payload: row.payload,
    phoneNumberId: row.phone_number_id,
    contactId: row.contact_id,
    phone: row.phone,
    conversationId: row.conversation_id,
    timeZone: row.time_zone,
    firstEver: row.first_ever,
    locale: row.locale === "sw" || row.locale === "fr" ? row.locale : "en",
    held: row.held,
    ran: row.ran,
  };
}

/** What automations decided for a message: the answer and, for a keyword rule, the keyword that matched. */
export type Decision =
  { kind: "answer"; answer: Answer; keyword?: string } | { kind: "none"; why: "held" | "no_match" | "cooldown" | "capped" | "answered" };

/** A rule's reply: its text, with its buttons when it has some (a button's id names the rule and the button). */
function replyContent(ruleId: string, reply: Extract<RuleAction, { type: "reply" }>): OutboundContent {
  if (!reply.buttons?.length) return { kind: "text", text: reply.text };
  return {
    kind: "interactive",
    interactive: { type: "button", body: reply.text, buttons: reply.buttons.map((title, i) => ({ id: `rule:${ruleId}:${i + 1}`, title })) },
  };
}

/** A rule's answer followed by another automation's (the assistant's, a flow's): both replies, both effects. */
function followedBy(rule: Answer, next: Answer): Answer {
  return {
    kind: next.kind,
    ruleId: rule.ruleId,
    replies: [...rule.replies, ...next.replies],
    effects: async (tx, runId) => {
      await rule.effects?.(tx, runId);
      await next.effects?.(tx, runId);
    },
    handover: next.handover ?? rule.handover,
  };
}

/** A keyword rule's answer: its reply and its other actions. */
function ruleAnswer(inbound: AutomationInbound, rule: LoadedRule): Answer {
  const reply = rule.actions.find((a) => a.type === "reply");
  const handsOver = rule.actions.some((a) => a.type === "handover");
  return {
    kind: "rule",
    ruleId: rule.id,
    replies: reply?.type === "reply" ? [replyContent(rule.id, reply)] : [],
    handover: handsOver ? { reason: "rule", detail: rule.name } : undefined,
    effects: async (tx, runId) => {
      await tx.execute(sql`update automation_rules set fired_count = fired_count + 1, last_fired_at = now() where id = ${rule.id}`);
      for (const action of rule.actions) await applyAction(tx, inbound, action, runId);
    },
  };
}

/**
 * Decides without acting: which automation answers this message, if any (the caps are checked when
 * acting). In order: nothing while a person holds the conversation; the first keyword rule that
 * matches; the welcome for a first message ever; the away message outside hours.
 */
export async function decide(inbound: Omit<Inbound, "ran">, now = new Date(), options: { attempt?: number } = {}): Promise<Decision> {
  if (inbound.held) return { kind: "none", why: "held" };
  // A conversation in a flow: the flow takes the customer's message first.
  const inFlow = await flowAnswer(inbound, now);
  if (inFlow) return { kind: "answer", answer: inFlow };
  const automations = await automationsOf(inbound.organizationId);
  const rules = automations.rules.filter((r) => r.phoneNumberId === null || r.phoneNumberId === inbound.phoneNumberId);
  const match = firstMatchingRule(rules, inbound.body);
  if (match) {
    if (match.rule.cooldownMinutes > 0 && (await coolingDown(match.rule, inbound.contactId, now))) return { kind: "none", why: "cooldown" };
    const answer = ruleAnswer(inbound, match.rule);
    // A rule that starts a flow: the flow's first messages instead of the rule's reply, the rule's other actions too.
    const flow = match.rule.actions.find((a) => a.type === "flow");
    const started = flow?.type === "flow" ? await startFlowAnswer(inbound, flow.flowId, now) : null;
    if (started) return { kind: "answer", answer: followedBy({ ...answer, replies: [] }, started), keyword: match.keyword };
    // "Then the assistant answers": its answer follows the rule's own (the caps checked before a model call).
    if (match.rule.actions.some((a) => a.type === "assistant") && !(await capped(inbound))) {
      const assisted = await assistantAnswer(inbound, now, options);
      if (assisted) return { kind: "answer", answer: followedBy(answer, assisted), keyword: match.keyword };
    }
    return { kind: "answer", answer, keyword: match.keyword };
  }
  // The assistant, when it answers on this number (a short rate limit throws RetryLater: the job
  // waits); the hourly caps are checked before it spends a model call.
  if (await assistantAnswersOn(inbound.organizationId, inbound.phoneNumberId)) {
    if (await capped(inbound)) return { kind: "none", why: "capped" };
    const assisted = await assistantAnswer(inbound, now, options);
    if (assisted) return { kind: "answer", answer: assisted };
  }
  const settings = automations.settings;
  if (settings.welcomeEnabled && settings.welcomeText && inbound.firstEver)
    return { kind: "answer", answer: { kind: "welcome", replies: [{ kind: "text", text: settings.welcomeText }] } };
  if (settings.awayEnabled && settings.awayText && !isOpenAt({ ...settings.schedule, timeZone: inbound.timeZone }, now)) {
    if (await awayAlreadySent(inbound.conversationId, now)) return { kind: "none", why: "answered" };
    return { kind: "answer", answer: { kind: "away", replies: [{ kind: "text", text: settings.awayText }] } };
  }
  return { kind: "none", why: "no_match" };
}

async function coolingDown(rule: LoadedRule, contactId: string, now: Date) {
  const row = await queryRow<{ recent: boolean }>(
    db(),
    sql`select exists (select 1 from automation_runs where contact_id = ${contactId} and rule_id = ${rule.id}
                         and created_at > ${now.toISOString()}::timestamptz - make_interval(mins => ${rule.cooldownMinutes})) as recent`,
  );
  return Boolean(row?.recent);
}

async function awayAlreadySent(conversationId: string, now: Date) {
  const row = await queryRow<{ sent: boolean }>(
    db(),
    sql`select exists (select 1 from automation_runs where conversation_id = ${conversationId} and kind = 'away'
                         and created_at > ${now.toISOString()}::timestamptz - make_interval(hours => ${AWAY_EVERY_HOURS})) as sent`,
  );
  return Boolean(row?.sent);
}

/** Over a cap: this conversation's automated replies in the last hour, or the number's. */
async function capped(inbound: Pick<Inbound, "conversationId" | "phoneNumberId">) {
  const row = await queryRow<{ conversation: number; number: number }>(
    db(),
    sql`
    select (select count(*) from automation_runs where conversation_id = ${inbound.conversationId} and reply_id is not null
              and created_at > now() - interval '1 hour')::int as conversation,
           (select count(*) from automation_runs where phone_number_id = ${inbound.phoneNumberId} and reply_id is not null
              and created_at > now() - interval '1 hour')::int as number`,
  );
  return (row?.conversation ?? 0) >= CONVERSATION_HOURLY_CAP || (row?.number ?? 0) >= NUMBER_HOURLY_CAP;
}

/** A number over its cap is said once a minute in the log (per instance), not once a message. */
const cappedSaid = new Map<string, number>();
function warnCappedOnce(organizationId: string, phoneNumberId: string) {
  const now = Date.now();
  if ((cappedSaid.get(phoneNumberId) ?? 0) > now - 60_000) return;
  if (cappedSaid.size > 1000) cappedSaid.clear();
  cappedSaid.set(phoneNumberId, now);
  log().warn({ organizationId, phoneNumberId }, "automations capped: replies held back for an hour's cap");
}

/** Thrown inside a run's transaction when another worker already answered the message: nothing is kept. */
class AlreadyRan extends Error {}
/** Thrown inside a run's transaction when the conversation reached its cap meanwhile: nothing is kept. */
class Capped extends Error {}

/**
 * The run's row (once a message), then what the answer changes besides its replies (tags, an
 * assignment, a flow's place, the rule's figures) and its hand-over, in the replies' transaction.
 */
async function writeRun(tx: Executor, inbound: Inbound, answer: Answer, replyIds: string[]) {
  const replyId = replyIds[0] ?? null;
  if (replyId) {
    // The conversation's cap holds exactly, whatever runs side by side: one run of a conversation
    // at a time counts and writes (the number's cap, checked before, may be passed by a few).
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`automation:${inbound.conversationId}`}))`);
    const sent = await queryRow<{ n: number }>(
      tx,
      sql`select count(*)::int as n from automation_runs where conversation_id = ${inbound.conversationId} and reply_id is not null
            and created_at > now() - interval '1 hour'`,
    );
    if ((sent?.n ?? 0) >= CONVERSATION_HOURLY_CAP) throw new Capped();
  }
  const run = await queryRow<{ id: string }>(
    tx,
    sql`
    insert into automation_runs (organization_id, message_id, conversation_id, contact_id, phone_number_id, kind, rule_id, reply_id)
    select organization_id, id, ${inbound.conversationId}, contact_id, phone_number_id, ${answer.kind}, ${answer.ruleId ?? null}, ${replyId}
    from messages where id = ${inbound.id}
    on conflict (message_id) do nothing
    returning id`,
  );
  if (!run) throw new AlreadyRan();
  if (replyIds.length)
    await tx.execute(sql`update messages set automation_run_id = ${run.id} where id = any(${sql.param(replyIds)}::uuid[])`);
  if (answer.effects) await answer.effects(tx, run.id);
  if (answer.handover)
    await handOver(tx, {
      organizationId: inbound.organizationId,
      conversationId: inbound.conversationId,
      reason: answer.handover.reason,
      detail: answer.handover.detail,
      by: answer.kind === "assistant" ? "assistant" : answer.kind === "flow" ? "flow" : "rule",
    });
}

/** A rule's actions other than its reply. */
async function applyAction(tx: Executor, inbound: AutomationInbound, action: RuleAction, runId: string) {
  if (action.type === "tags") {
    await tx.execute(sql`
      update contacts set tags = array(select distinct t from unnest(array_cat(tags, ${sql.param(action.add)}::text[])) t
                                       where t <> all(${sql.param(action.remove)}::text[]) order by t),
                          updated_at = now()
      where id = ${inbound.contactId}`);
  } else if (action.type === "webhook") {
    await queueRuleWebhook(tx, { organizationId: inbound.organizationId, runId, url: action.url });
  } else if (action.type === "field") {
    await tx.execute(sql`
      update contacts set attributes = attributes || jsonb_build_object(${action.key}::text, ${JSON.stringify(action.value)}::jsonb),
                          updated_at = now()
      where id = ${inbound.contactId}`);
  } else if (action.type === "assign") {
    // Only a member of the organisation who still may answer; someone removed since is skipped.
    // Assigned to a person, the conversation is theirs: automations fall silent until it is resolved.
    await tx.execute(sql`
      update conversations v set assigned_to = ${action.userId}, person_held_at = coalesce(v.person_held_at, now())
      where v.id = ${inbound.conversationId} and v.assigned_to is null
        and exists (select 1 from users u where u.id = ${action.userId} and u.organization_id = v.organization_id
                      and u.org_role in ('owner', 'admin', 'agent'))`);
  }
}

/**
 * Queues an answer's replies and records its run, in one transaction: the replies, the run's row,
 * its effects and its hand-over all happen or none does. An answer without replies is recorded
 * alone. Refusals the caller handles (a closed window, a disconnected number) leave nothing behind.
 */
async function deliver(inbound: Inbound, answer: Answer, replyTo?: string) {
  const [first, ...rest] = answer.replies;
  if (!first) {
    await db().transaction((tx) => writeRun(tx, inbound, answer, []));
    return;
  }
  await queueMessage(inbound.organizationId, {
    to: inbound.phone,
    from: inbound.phoneNumberId,
    content: first,
    followUps: rest,
    replyTo,
    source: "automation",
    onQueued: (tx, messageId, followUpIds) => writeRun(tx, inbound, answer, [messageId, ...followUpIds]),
  });
}

/** Runs one message's automations: decided, then acted on in one transaction with its replies. */
export async function runAutomation(
  payload: AutomationPayload,
  now = new Date(),
  options: { attempt?: number } = {},
): Promise<Decision | null> {
  const inbound = await inboundOf(payload);
  if (!inbound || inbound.ran) return null;
  const decision = await decide(inbound, now, options);
  if (decision.kind === "none") return decision;
  if (await capped(inbound)) {
    warnCappedOnce(payload.organizationId, inbound.phoneNumberId);
    return { kind: "none", why: "capped" };
  }
  try {
    // A keyword rule's reply quotes the customer's message.
    await deliver(inbound, decision.answer, decision.answer.kind === "rule" ? inbound.id : undefined);
  } catch (error) {
    if (error instanceof AlreadyRan) return null;
    if (error instanceof Capped) {
      warnCappedOnce(payload.organizationId, inbound.phoneNumberId);
      return { kind: "none", why: "capped" };
    }
    // The number was disconnected, the organisation is closing…: the customer's message waits for a person.
    if (!isRefusal(error, "send")) throw error;
    log().warn({ organizationId: payload.organizationId, refusal: error.code }, "automation not sent");
    return { kind: "none", why: "no_match" };
  }
  return decision;
}

export async function runAutomations(jobs: Job<AutomationPayload>[]) {
  for (const job of jobs) await runAutomation(job.payload, new Date(), { attempt: job.attempts });
}
