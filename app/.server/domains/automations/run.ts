import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import type { Job } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { stepHistogram } from "../../infrastructure/metrics/instance";
import { consentOfMessage } from "../contacts";
import { productMessageIfSendable } from "../shop";
import { isRefusal } from "../../infrastructure/refusal";
import {
  queueMessage,
  composeReplies,
  insertReplies,
  isBatchable,
  type ComposedReply,
  wakeDispatcher,
  type OutboundContent,
  isFreeForm,
} from "../messaging";
import { applyFiredRules } from "./batch-effects";
import { firstMatchingRule } from "./match";
import { rulesForMessage } from "./from-ad";
import { assistantAnswer } from "./assistant/answer";
import { isOpenAt } from "./hours";
import { WELCOME_AGAIN_AFTER_DAYS } from "./settings";
import { automationsOf, type LoadedRule, type RuleAction } from "./rules-cache";
import type { Answer, AutomationInbound } from "./answer";
import { handOver, type HandoverBy } from "./handover";
import { greetingOf, greetingReply } from "./greeting";
import { flowAnswer, startFlowAnswer } from "./flows/answer";
import { admitAutomatedReplies, admitAutomatedReply, CONVERSATION_HOURLY_CAP, KeptBack, NUMBER_HOURLY_CAP } from "./reply-gate";

/**
 * Automations answer customers' messages (issue 44): a keyword rule's actions, else a welcome for a
 * first message ever, else an away message outside business hours. The webhook's transaction queues
 * one arrival job for its batch's customer messages of organisations that have automations (so a
 * crash loses none); that job queues a job for each message an automation may answer, and that job
 * decides and acts once (a run row per message, unique, written in the reply's own
 * transaction). Nothing Jumbe sends is an inbound message, so nothing an automation sends can set one
 * off; a person holding the conversation silences them all.
 */
export const AUTOMATION_QUEUE = "automations.inbound";
/**
 * The messages of organisations whose AI assistant is on: a model call may take seconds, so they
 * run in small batches of their own, never holding up the rules' quick answers to everyone else.
 */
export const AUTOMATION_ASSISTANT_QUEUE = "automations.assistant";

/** The hourly caps, held exactly by the reply gate (reply-gate.ts). */
export { CONVERSATION_HOURLY_CAP, NUMBER_HOURLY_CAP };
/** The away message: at most once a conversation in this many hours. */
export const AWAY_EVERY_HOURS = 24;

/** The kinds of customer message automations read: what they wrote or tapped. */
const READ_TYPES = new Set(["text", "button", "interactive"]);

export interface AutomationPayload {
  organizationId: string;
  messageId: string;
}

/**
 * The arrival job's queue: one job for each webhook batch with customer messages for organisations
 * with automations. It reads what decides them and queues a job for each message an automation may
 * answer (enqueueAutomations), outside the webhook's transaction, so storing a customer's message
 * never waits on automations' reads (decision 093).
 */
export const AUTOMATION_ARRIVAL_QUEUE = "automations.arrival";

export interface AutomationArrivalPayload {
  messages: AutomationPayload[];
}

/** Organisations with an automation on, or a customer in a flow (whose answer is the flow's, whatever the rules are now). */
const hasAutomations = (organizationId: ReturnType<typeof sql>) => sql`(
  exists (select 1 from automation_settings s where s.organization_id = ${organizationId}
          and (s.welcome_enabled or s.away_enabled
               or exists (select 1 from automation_rules r where r.organization_id = ${organizationId} and r.enabled)))
  or exists (select 1 from assistant_settings a where a.organization_id = ${organizationId} and a.enabled)
  or exists (select 1 from flow_sessions f where f.organization_id = ${organizationId} and f.status = 'active'))`;

/**
 * In the webhook's transaction, before the inbox's change log is locked: the batch's new customer
 * messages that automations may read (what they wrote or tapped), in one arrival job, when their
 * organisation has automations (checked once an organisation, in the same statement). A crash loses
 * none: the job commits with the messages. Answers how many messages it holds.
 */
export async function queueAutomationsArrival(
  tx: Executor,
  inserted: readonly { id: string; organization_id: string; message_type: string; contact_id: string | null }[],
): Promise<number> {
  const read = inserted.filter((m) => m.contact_id && READ_TYPES.has(m.message_type));
  if (!read.length) return 0;
  await tx.execute(sql`
    with asked as (
      select * from unnest(${sql.param(read.map((m) => m.organization_id))}::uuid[], ${sql.param(read.map((m) => m.id))}::uuid[]) with ordinality as t(o, m, n)
    ),
    organisations as materialized (
      select g.o from (select distinct o from asked) g where ${hasAutomations(sql`g.o`)}
    )
    insert into jobs (queue, payload, run_at, priority)
    select ${AUTOMATION_ARRIVAL_QUEUE}, jsonb_build_object('messages', jsonb_agg(jsonb_build_object('organizationId', t.o, 'messageId', t.m) order by t.n)), now(), 0
    from asked t join organisations g on g.o = t.o
    having count(*) > 0`);
  return read.length;
}

/**
 * The arrival jobs' work, in one transaction with their completion: the messages read with what
 * decides their answers (one statement), and a job for each that an automation may answer.
 */
export async function runAutomationsArrival(tx: Executor, jobs: readonly Job<AutomationArrivalPayload>[]) {
  const messages = jobs.flatMap((job) => job.payload.messages ?? []);
  if (!messages.length) return;
  const read = await inboundsOf(messages, new Date(), { executor: tx, withAutomationsOnly: true });
  const candidates = messages.map((m) => read.get(m.messageId)).filter((inbound): inbound is Inbound => inbound !== undefined);
  // A consent keyword (STOP, ACHA…) is answered by the consent ledger alone, in the webhook's transaction.
  const consent = new Set(candidates.filter((m) => consentOfMessage(m.messageType, m.body)).map((m) => m.id));
  await enqueueAutomations(tx, candidates, consent);
}

/**
 * What automations added to the webhook's transaction for a batch (queueing its arrival job), once
 * for each message they may read, as each of them waited for all of it: the
 * jumbe_automations_arrival_seconds histogram on /metrics (issue 44's budget of 2 ms p99 a message;
 * bench/automations.mjs reads it). Organisations without automations pay the statement's check alone.
 */
export function noteAutomationsArrival(messages: number, ms: number) {
  if (!messages) return;
  const histogram = stepHistogram(
    "jumbe_automations_arrival_seconds",
    "Time automations add to an inbound message's webhook transaction (queueing its batch's arrival job), per message they may read, in seconds.",
    ARRIVAL_BUCKETS,
  );
  for (let i = 0; i < messages; i++) histogram.observe(ms / 1000);
}
const ARRIVAL_BUCKETS = [
  0.00025, 0.0005, 0.001, 0.0015, 0.002, 0.003, 0.004, 0.005, 0.006, 0.008, 0.01, 0.0125, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.1, 0.25,
  0.5, 1, 2.5,
];

/**
 * A job for each candidate an automation may answer, decided by its webhook batch's arrival job: the
 * batch's messages that no automation would answer (none matches, the away message went out already,
 * a person holds the conversation, a cap is reached) cost no job of their own and no second read. What
 * may answer (a rule, the welcome, the away message, a flow in progress, the assistant) gets its job,
 * which decides again and acts (its decision is the one that counts). A consent keyword (STOP,
 * ACHA…) is answered by the consent ledger alone: it always wins.
 */
export async function enqueueAutomations(tx: Executor, candidates: readonly Inbound[], consentKeywords: ReadonlySet<string>) {
  const tally = new BatchTally();
  const answerable: Inbound[] = [];
  for (const inbound of candidates) {
    if (consentKeywords.has(inbound.id)) continue;
    if (await mayAnswer(tx, inbound, tally)) answerable.push(inbound);
  }
  if (!answerable.length) return;
  await tx.execute(sql`
    insert into jobs (queue, payload, run_at, priority, unique_key)
    select q, jsonb_build_object('organizationId', t.o, 'messageId', t.m), now(), 0, 'automation:' || t.m
    from unnest(${sql.param(answerable.map((m) => m.organizationId))}::uuid[], ${sql.param(answerable.map((m) => m.id))}::uuid[],
                ${sql.param(answerable.map((m) => (m.assistantOn ? AUTOMATION_ASSISTANT_QUEUE : AUTOMATION_QUEUE)))}::text[]) as t(o, m, q)
    on conflict (unique_key) where finished_at is null and failed_at is null do nothing`);
}

/**
 * Whether an automation may answer this message, from what the batch read alone (no other read):
 * false only where decide() would surely answer nothing. Anything that needs more than the batch's
 * read to decide (a flow's session, the assistant, a rule's cooldown) says true.
 */
async function mayAnswer(tx: Executor, inbound: Inbound, tally: BatchTally): Promise<boolean> {
  if (inbound.held || tally.capped(inbound)) return false;
  if (inbound.inFlow || inbound.assistantOn) return true;
  const automations = await automationsOf(inbound.organizationId, inbound.settingsVersion, tx);
  const rules = rulesForMessage(automations.rules, inbound);
  if (firstMatchingRule(rules, inbound.body)) return true;
  const settings = automations.settings;
  if (settings.welcomeEnabled && settings.welcomeText && inbound.welcomeDue) return true;
  if (settings.awayEnabled && settings.awayText && !tally.awaySent(inbound)) {
    if (isOpenAt({ ...settings.schedule, timeZone: inbound.timeZone }, new Date())) return false;
    // The batch's next message of this conversation would find this one's away message sent.
    tally.replied(inbound, { kind: "away", replies: [{ kind: "text", text: settings.awayText }] });
    return true;
  }
  return false;
}

/** The customer's message as automations read it, with what decides whether they may answer at all. */
interface Inbound extends AutomationInbound {
  /** A person holds the conversation: every automation stays silent. */
  held: boolean;
  /** The welcome greets this message: the customer's first, or their first after WELCOME_AGAIN_AFTER_DAYS of silence. */
  welcomeDue: boolean;
  /** A run for this message exists already (a retried job). */
  ran: boolean;
  /** The conversation has an active chatbot flow session. */
  inFlow: boolean;
  /** The away message went to this conversation in the last AWAY_EVERY_HOURS hours. */
  awaySent: boolean;
  /** Automated replies in the last hour: this conversation's, and the number's (read with the batch). */
  conversationReplies: number;
  numberReplies: number;
  /** The organisation's automation settings' version (-1 without settings): the rules cache's key. */
  settingsVersion: number;
  /** The assistant answers on this message's number. */
  assistantOn: boolean;
  /** Meta's id of the message (a reply quotes it). */
  wamid: string | null;
  /** The customer's 24-hour window with the number is open: a free-form reply may go. */
  windowOpen: boolean;
}

interface InboundRow {
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
  welcome_due: boolean;
  ran: boolean;
  in_flow: boolean;
  away_sent: boolean;
  conversation_replies: number;
  number_replies: number;
  settings_version: number;
  assistant_on: boolean;
  wamid: string | null;
  window_open: boolean;
}

/**
 * A batch's customer messages and everything their decisions read (a person holding the
 * conversation, a flow session, the away message, the hour's replies, the settings' version, the
 * assistant), in one statement: deciding a message that no automation answers costs no other read.
 * Messages that are not ones to answer are left out.
 */
async function inboundsOf(
  payloads: readonly AutomationPayload[],
  now: Date,
  options: { executor?: Executor; withAutomationsOnly?: boolean } = {},
): Promise<Map<string, Inbound>> {
  // For the arrival job: only organisations with an automation on (most have none).
  // Checked once an organisation (materialized), not once a message.
  const withAutomations = options.withAutomationsOnly ? sql`where ${hasAutomations(sql`g.o`)}` : sql``;
  const rows = await queryRows<InboundRow>(
    options.executor ?? db(),
    sql`
    with asked as materialized (
      select * from unnest(${sql.param(payloads.map((p) => p.organizationId))}::uuid[], ${sql.param(payloads.map((p) => p.messageId))}::uuid[]) as t(o, m)
    ),
    organisations as materialized (
      select g.o from (select distinct o from asked) g ${withAutomations}
    ),
    picked as materialized (
      -- Each message by its key (lateral): a batch is a few hundred of a table of millions.
      select m.id, m.organization_id, m.body, m.message_type, m.payload, m.phone_number_id, m.contact_id, m.seq, m.wamid
      from asked t
      join organisations g on g.o = t.o
      cross join lateral (select * from messages m where m.id = t.m and m.organization_id = t.o and m.direction = 'inbound') m
    ),
    -- Counted once a number, not once a message.
    numbers as materialized (
      select n.phone_number_id,
             (select count(*) from automation_runs r where r.phone_number_id = n.phone_number_id and r.reply_id is not null
                and r.created_at > ${now.toISOString()}::timestamptz - interval '1 hour')::int as replies
      from (select distinct phone_number_id from picked) n
    )
    select m.id, m.body, m.message_type, m.payload, m.phone_number_id, m.contact_id, c.phone, v.id as conversation_id, o.time_zone,
           coalesce(c.language, o.default_locale) as locale, v.person_held_at is not null as held,
           not exists (select 1 from messages p where p.organization_id = m.organization_id and p.contact_id = m.contact_id
                         and p.direction = 'inbound' and p.seq < m.seq) as first_ever,
           not exists (select 1 from messages p where p.organization_id = m.organization_id and p.contact_id = m.contact_id
                         and p.direction = 'inbound' and p.seq < m.seq
                         and p.created_at > ${now.toISOString()}::timestamptz - make_interval(days => ${WELCOME_AGAIN_AFTER_DAYS})) as welcome_due,
           exists (select 1 from automation_runs r where r.message_id = m.id) as ran,
           exists (select 1 from flow_sessions f where f.conversation_id = v.id and f.status = 'active') as in_flow,
           exists (select 1 from automation_runs r where r.conversation_id = v.id and r.kind = 'away'
                     and r.created_at > ${now.toISOString()}::timestamptz - make_interval(hours => ${AWAY_EVERY_HOURS})) as away_sent,
           (select count(*) from automation_runs r where r.conversation_id = v.id and r.reply_id is not null
              and r.created_at > ${now.toISOString()}::timestamptz - interval '1 hour')::int as conversation_replies,
           n.replies as number_replies,
           coalesce(s.version, -1) as settings_version, m.wamid,
           v.last_inbound_at > ${now.toISOString()}::timestamptz - interval '24 hours' as window_open,
           exists (select 1 from assistant_settings a where a.organization_id = m.organization_id and a.enabled
                     and m.phone_number_id = any(a.phone_number_ids)) as assistant_on
    from picked m
    join contacts c on c.id = m.contact_id
    join conversations v on v.organization_id = m.organization_id and v.phone_number_id = m.phone_number_id and v.contact_id = m.contact_id
    join organizations o on o.id = m.organization_id
    join numbers n on n.phone_number_id = m.phone_number_id
    left join automation_settings s on s.organization_id = m.organization_id
    -- On arrival: a message whose number has sent its hour's replies is answered by nothing
    -- (mayAnswer), so its own reads are not made (a number at its cap is a busy number).
    ${options.withAutomationsOnly ? sql`where n.replies < ${NUMBER_HOURLY_CAP}` : sql``}`,
  );
  const organizations = new Map(payloads.map((p) => [p.messageId, p.organizationId]));
  const byId = new Map<string, Inbound>();
  for (const row of rows) {
    if (!row.phone) continue;
    byId.set(row.id, {
      organizationId: organizations.get(row.id)!,
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
      welcomeDue: row.welcome_due,
      ran: row.ran,
      inFlow: row.in_flow,
      awaySent: row.away_sent,
      conversationReplies: row.conversation_replies,
      numberReplies: row.number_replies,
      settingsVersion: row.settings_version,
      assistantOn: row.assistant_on,
      wamid: row.wamid,
      windowOpen: row.window_open,
    });
  }
  return byId;
}

/**
 * What one batch's runs have done so far, beside what was read with the batch: replies queued by
 * conversation and by number, and conversations sent the away message, so that the batch's later
 * messages are decided on the counts as they now stand.
 */
class BatchTally {
  private conversations = new Map<string, number>();
  private numbers = new Map<string, number>();
  private away = new Set<string>();
  private holding = new Set<string>();
  private firedRules = new Set<string>();
  replied(inbound: Inbound, answer: Answer, holds = false) {
    if (holds) this.holding.add(inbound.conversationId);
    if (answer.ruleId) this.firedRules.add(`${answer.ruleId}|${inbound.contactId}`);
    if (!answer.replies.length) return;
    this.conversations.set(inbound.conversationId, (this.conversations.get(inbound.conversationId) ?? 0) + 1);
    this.numbers.set(inbound.phoneNumberId, (this.numbers.get(inbound.phoneNumberId) ?? 0) + 1);
    if (answer.kind === "away") this.away.add(inbound.conversationId);
  }
  /** Over a cap: this conversation's automated replies in the last hour, or the number's. */
  capped(inbound: Inbound) {
    return (
      inbound.conversationReplies + (this.conversations.get(inbound.conversationId) ?? 0) >= CONVERSATION_HOURLY_CAP ||
      inbound.numberReplies + (this.numbers.get(inbound.phoneNumberId) ?? 0) >= NUMBER_HOURLY_CAP
    );
  }
  awaySent(inbound: Inbound) {
    return inbound.awaySent || this.away.has(inbound.conversationId);
  }
  /** A person holds the conversation since the batch was read (an earlier message's rule handed it over). */
  held(inbound: Inbound) {
    return inbound.held || this.holding.has(inbound.conversationId);
  }
  /** The rule answered this customer earlier in the batch (its cooldown starts there). */
  fired(ruleId: string, contactId: string) {
    return this.firedRules.has(`${ruleId}|${contactId}`);
  }
}

/** What automations decided for a message: the answer and, for a keyword rule, the keyword that matched. */
export type Decision =
  | { kind: "answer"; answer: Answer; keyword?: string; rule?: LoadedRule }
  | { kind: "none"; why: "held" | "no_match" | "cooldown" | "capped" | "answered" | "opted_out" | "window_closed" };

/** A rule's reply: its text, with its buttons or its list when it has some (a choice's id names the rule and the choice). */
function replyContent(ruleId: string, reply: Extract<RuleAction, { type: "reply" }>): OutboundContent {
  if (reply.list?.rows.length)
    return {
      kind: "interactive",
      interactive: {
        type: "list",
        body: reply.text,
        button: reply.list.button,
        sections: [{ rows: reply.list.rows.map((title, i) => ({ id: `rule:${ruleId}:${i + 1}`, title })) }],
      },
    };
  if (!reply.buttons?.length) return { kind: "text", text: reply.text };
  return {
    kind: "interactive",
    interactive: { type: "button", body: reply.text, buttons: reply.buttons.map((title, i) => ({ id: `rule:${ruleId}:${i + 1}`, title })) },
  };
}

/** A rule's replies: its text (with buttons or a list), or its approved template; then its products, read from the catalog now. */
function ruleReplies(rule: LoadedRule, products: OutboundContent[]): OutboundContent[] {
  return [
    ...rule.actions.flatMap((action): OutboundContent[] => {
      if (action.type === "reply") return [replyContent(rule.id, action)];
      if (action.type === "template")
        return [{ kind: "template", template: { name: action.name, language: action.language, parameters: action.parameters } }];
      return [];
    }),
    ...products,
  ];
}

/**
 * A rule's "Send products" (decision 143): the message made from the products the catalog holds
 * now; none when nothing of it is left (its product removed, the catalog gone), the rest of the rule
 * going on.
 */
async function ruleProducts(organizationId: string, rule: LoadedRule): Promise<OutboundContent[]> {
  const action = rule.actions.find((a) => a.type === "products");
  if (action?.type !== "products") return [];
  const interactive = await productMessageIfSendable(organizationId, action);
  if (!interactive) log().info({ organizationId, ruleId: rule.id }, "rule's products: none is in the catalog now, sent without them");
  return interactive ? [{ kind: "interactive", interactive }] : [];
}

/** A rule's answer followed by another automation's (the assistant's, a flow's): both replies, both effects. */
function followedBy(rule: Answer, next: Answer, kind: Answer["kind"] = next.kind): Answer {
  return {
    kind,
    ruleId: rule.ruleId,
    replies: [...rule.replies, ...next.replies],
    effects: async (tx, runId) => {
      await rule.effects?.(tx, runId);
      await next.effects?.(tx, runId);
    },
    handover: next.handover ? { by: handoverBy(next), ...next.handover } : rule.handover,
  };
}

/** Who hands over for an answer: its own word, else its kind's. */
const handoverBy = (answer: Answer): HandoverBy =>
  answer.handover?.by ?? (answer.kind === "assistant" ? "assistant" : answer.kind === "flow" ? "flow" : "rule");

/** A keyword rule's answer: its reply and its other actions. */
function ruleAnswer(inbound: AutomationInbound, rule: LoadedRule, products: OutboundContent[] = []): Answer {
  const handsOver = rule.actions.some((a) => a.type === "handover");
  return {
    kind: "rule",
    ruleId: rule.id,
    replies: ruleReplies(rule, products),
    handover: handsOver ? { reason: "rule", detail: rule.name } : undefined,
    effects: async (tx, runId) => {
      for (const action of rule.actions) if (action.type === "assign") await assign(tx, inbound, action.userId);
      // Its tags, fields, webhooks and figures as a batch's are (batch-effects.ts).
      await applyFiredRules(tx, [
        { ruleId: rule.id, contactId: inbound.contactId, organizationId: inbound.organizationId, runId, actions: rule.actions },
      ]);
    },
  };
}

/**
 * Decides without acting: which automation answers this message, if any (the caps are checked when
 * acting). In order (decision 113; a consent keyword never reaches here, the consent ledger answers
 * it): nothing while a person holds the conversation; the flow the conversation is in; the first
 * keyword rule that matches; the welcome (a new customer, or one back after a long silence) or the
 * away message (outside hours); then the assistant for a real question, after the welcome or away
 * message when one went. A greeting is no question: the welcome answers it, else the assistant
 * greets back, never handing over. Reads only what the batch's read did not bring: a matched rule's cooldown,
 * a flow's session, the assistant's knowledge.
 */
async function decide(inbound: Inbound, tally: BatchTally, now: Date, options: { attempt?: number }): Promise<Decision> {
  if (tally.held(inbound)) return { kind: "none", why: "held" };
  // A conversation in a flow: the flow takes the customer's message first.
  const inFlow = inbound.inFlow ? await flowAnswer(inbound, now) : null;
  if (inFlow) return { kind: "answer", answer: inFlow };
  const automations = await automationsOf(inbound.organizationId, inbound.settingsVersion);
  const rules = rulesForMessage(automations.rules, inbound);
  const match = firstMatchingRule(rules, inbound.body);
  if (match) {
    if (
      match.rule.cooldownMinutes > 0 &&
      (tally.fired(match.rule.id, inbound.contactId) || (await coolingDown(match.rule, inbound.contactId, now)))
    )
      return { kind: "none", why: "cooldown" };
    const answer = ruleAnswer(inbound, match.rule, await ruleProducts(inbound.organizationId, match.rule));
    // A rule that starts a flow: the flow's first messages instead of the rule's reply, the rule's other actions too.
    const flow = match.rule.actions.find((a) => a.type === "flow");
    const started = flow?.type === "flow" ? await startFlowAnswer(inbound, flow.flowId, now) : null;
    if (started) return { kind: "answer", answer: followedBy({ ...answer, replies: [] }, started), keyword: match.keyword };
    // "Then the assistant answers": its answer follows the rule's own (the caps checked before a model call).
    if (match.rule.actions.some((a) => a.type === "assistant") && !tally.capped(inbound)) {
      const assisted = await assistantAnswer(inbound, now, options);
      if (assisted) return { kind: "answer", answer: followedBy(answer, assisted), keyword: match.keyword };
    }
    return { kind: "answer", answer, keyword: match.keyword, rule: match.rule };
  }
  // Welcome (a new customer, or one back after a long silence) or away (outside hours, once a day):
  // they greet whatever was written. Then the assistant, for a real question only: a greeting is no
  // question for the knowledge base (decision 113).
  const settings = automations.settings;
  const closed = settings.awayEnabled && !!settings.awayText && !isOpenAt({ ...settings.schedule, timeZone: inbound.timeZone }, now);
  const opening: Answer | null =
    settings.welcomeEnabled && settings.welcomeText && inbound.welcomeDue
      ? { kind: "welcome", replies: [{ kind: "text", text: settings.welcomeText }] }
      : closed && !tally.awaySent(inbound)
        ? { kind: "away", replies: [{ kind: "text", text: settings.awayText }] }
        : null;
  if (inbound.assistantOn) {
    const greeting = inbound.messageType === "text" ? greetingOf(inbound.body) : null;
    if (greeting)
      return {
        kind: "answer",
        answer: opening ?? {
          kind: "assistant",
          replies: [{ kind: "text", text: await greetingReply(inbound.organizationId, greeting, inbound.locale) }],
        },
      };
    // The hourly caps are checked before a model call; a short rate limit throws RetryLater (the job waits).
    if (tally.capped(inbound)) return opening ? { kind: "answer", answer: opening } : { kind: "none", why: "capped" };
    const assisted = await assistantAnswer(inbound, now, options);
    if (assisted) return { kind: "answer", answer: opening ? followedBy(opening, assisted, opening.kind) : assisted };
  }
  if (opening) return { kind: "answer", answer: opening };
  if (closed) return { kind: "none", why: "answered" };
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

/**
 * The reply gate first (a person holding the conversation, an opt-out, the window, the caps, all as
 * they stand now: reply-gate.ts), then the run's row (once a message), then what the answer changes
 * besides its replies (tags, an assignment, a flow's place, the rule's figures) and its hand-over, in
 * the replies' transaction.
 */
async function writeRun(tx: Executor, inbound: Inbound, answer: Answer, replyIds: string[]) {
  const replyId = replyIds[0] ?? null;
  await admitAutomatedReply(tx, {
    conversationId: inbound.conversationId,
    phoneNumberId: inbound.phoneNumberId,
    sends: replyIds.length > 0,
    freeForm: answer.replies.every(isFreeForm),
    answering: inbound.id,
  });
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
      by: handoverBy(answer),
    });
}

/**
 * A rule's assignment: only to a member of the organisation who still may answer (someone removed
 * since is skipped). Assigned to a person, the conversation is theirs: automations fall silent until
 * it is resolved.
 */
async function assign(tx: Executor, inbound: AutomationInbound, userId: string) {
  await tx.execute(sql`
    update conversations v set assigned_to = ${userId}, person_held_at = coalesce(v.person_held_at, now())
    where v.id = ${inbound.conversationId} and v.assigned_to is null
      and exists (select 1 from users u where u.id = ${userId} and u.organization_id = v.organization_id
                    and u.org_role in ('owner', 'admin', 'agent'))`);
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
    onQueued: (tx, message, followUps) => writeRun(tx, inbound, answer, [message.id, ...followUps.map((f) => f.id)]),
  });
}

/** The decision's answer queued and recorded on its own (one transaction); what came of it. */
async function act(inbound: Inbound, decision: Extract<Decision, { kind: "answer" }>): Promise<Decision | null> {
  try {
    // A keyword rule's reply quotes the customer's message.
    await deliver(inbound, decision.answer, decision.answer.kind === "rule" ? inbound.id : undefined);
  } catch (error) {
    if (error instanceof AlreadyRan) return null;
    if (error instanceof KeptBack) {
      if (error.why === "capped") warnCappedOnce(inbound.organizationId, inbound.phoneNumberId);
      return { kind: "none", why: error.why };
    }
    // The number was disconnected, the organisation is closing…: the customer's message waits for a person.
    if (!isRefusal(error, "send")) throw error;
    log().warn({ organizationId: inbound.organizationId, refusal: error.code }, "automation not sent");
    return { kind: "none", why: "no_match" };
  }
  return decision;
}

/** A rule's actions that change nothing a later message of the batch decides on (batchable with others). */
const QUIET_ACTIONS = new Set<RuleAction["type"]>(["reply", "tags", "field", "webhook"]);

/** Whether a decision's answer may be queued with the batch's others (deliverPlanned): plain replies and quiet actions. */
function batchable(inbound: Inbound, decision: Extract<Decision, { kind: "answer" }>) {
  const { answer } = decision;
  if (!inbound.windowOpen || !isBatchable(answer.replies) || answer.handover) return false;
  // A welcome or away followed by the assistant's answer has effects of its own: not batchable.
  if (answer.kind === "welcome" || answer.kind === "away") return !answer.effects;
  return answer.kind === "rule" && !!decision.rule && decision.rule.actions.every((a) => QUIET_ACTIONS.has(a.type));
}

/** Whether the answer leaves a person holding the conversation (a hand-over, a rule's assignment). */
const holds = (decision: Extract<Decision, { kind: "answer" }>) =>
  !!decision.answer.handover || !!decision.rule?.actions.some((a) => a.type === "assign" || a.type === "handover");

interface Planned {
  inbound: Inbound;
  decision: Extract<Decision, { kind: "answer" }>;
}

/**
 * The batch's plain answers queued together, in one transaction: each through the reply gate (a
 * person, an opt-out, the window and the caps as they stand now, under the conversations' and
 * numbers' locks), a run a message (one statement), the replies (one statement), their effects. A
 * failure there undoes the lot, and each answer is then tried on its own.
 */
async function deliverPlanned(planned: Planned[]) {
  if (!planned.length) return;
  const composed = await composeReplies(
    planned.map(({ inbound, decision }) => ({
      organizationId: inbound.organizationId,
      phoneNumberId: inbound.phoneNumberId,
      to: inbound.phone,
      contents: decision.answer.replies,
      quotes: decision.answer.kind === "rule" ? inbound.wamid : null,
    })),
  );
  const ready: (Planned & { reply: ComposedReply })[] = [];
  composed.forEach((reply, i) => {
    if ("request" in reply) ready.push({ ...planned[i]!, reply });
    else log().warn({ organizationId: planned[i]!.inbound.organizationId, refusal: reply.code }, "automation not sent");
  });
  if (!ready.length) return;
  try {
    await db().transaction(async (tx) => {
      const verdicts = await admitAutomatedReplies(
        tx,
        ready.map(({ inbound }) => ({
          conversationId: inbound.conversationId,
          phoneNumberId: inbound.phoneNumberId,
          sends: true,
          freeForm: true,
          answering: inbound.id,
        })),
      );
      const kept = ready.filter((_, i) => verdicts[i] === null);
      const runs = await queryRows<{ id: string; message_id: string }>(
        tx,
        sql`
        insert into automation_runs (organization_id, message_id, conversation_id, contact_id, phone_number_id, kind, rule_id)
        select * from unnest(${sql.param(kept.map((k) => k.inbound.organizationId))}::uuid[], ${sql.param(kept.map((k) => k.inbound.id))}::uuid[],
                             ${sql.param(kept.map((k) => k.inbound.conversationId))}::uuid[], ${sql.param(kept.map((k) => k.inbound.contactId))}::uuid[],
                             ${sql.param(kept.map((k) => k.inbound.phoneNumberId))}::text[], ${sql.param(kept.map((k) => k.decision.answer.kind))}::text[],
                             ${sql.param(kept.map((k) => k.decision.answer.ruleId ?? null))}::uuid[])
        on conflict (message_id) do nothing
        returning id, message_id`,
      );
      const runOf = new Map(runs.map((r) => [r.message_id, r.id]));
      // A message another worker answered meanwhile: its run exists, nothing more here.
      const going = kept.filter((k) => runOf.has(k.inbound.id));
      const runIds = going.map((g) => runOf.get(g.inbound.id)!);
      const replyIds = await insertReplies(
        tx,
        going.map((g) => g.reply),
        runIds,
        "automation",
      );
      await tx.execute(sql`
        update automation_runs r set reply_id = t.reply
        from unnest(${sql.param(runIds)}::uuid[], ${sql.param(replyIds.map((ids) => ids[0] ?? null))}::uuid[]) as t(id, reply)
        where r.id = t.id`);
      // The rules' tags, fields, figures and webhooks together, last (batch-effects.ts); welcome and away have none.
      await applyFiredRules(
        tx,
        going.flatMap((g, i) => {
          const rule = g.decision.rule;
          if (g.decision.answer.kind !== "rule" || !rule) return [];
          return [
            {
              ruleId: rule.id,
              contactId: g.inbound.contactId,
              organizationId: g.inbound.organizationId,
              runId: runIds[i]!,
              actions: rule.actions,
            },
          ];
        }),
      );
      const capped = ready.find((_, i) => verdicts[i] === "capped");
      if (capped) warnCappedOnce(capped.inbound.organizationId, capped.inbound.phoneNumberId);
    });
  } catch (error) {
    // One answer's failure must not hold back the others': each again on its own transaction.
    log().warn({ err: error, answers: ready.length }, "automations' batch failed; answering one by one");
    for (const { inbound, decision } of ready) await act(inbound, decision);
    return;
  }
  wakeDispatcher();
}

/** Runs one message's automations (null: not one to answer, or answered already). */
export async function runAutomation(
  payload: AutomationPayload,
  now = new Date(),
  options: { attempt?: number } = {},
): Promise<Decision | null> {
  const inbound = (await inboundsOf([payload], now)).get(payload.messageId);
  if (!inbound || inbound.ran) return null;
  const tally = new BatchTally();
  const decision = await decide(inbound, tally, now, options);
  if (decision.kind === "none") return decision;
  if (tally.capped(inbound)) {
    warnCappedOnce(inbound.organizationId, inbound.phoneNumberId);
    return { kind: "none", why: "capped" };
  }
  return act(inbound, decision);
}

/** Messages of different conversations a batch decides side by side. */
const CONVERSATIONS_AT_ONCE = 3;

/**
 * A batch of messages' automations: one read for the whole batch, then each conversation's
 * messages decided in turn (in the order the jobs were claimed), up to CONVERSATIONS_AT_ONCE
 * conversations side by side, the counts as the batch's earlier answers left them. Plain answers
 * (a rule's reply, the welcome, the away message) are queued together at the end, in one
 * transaction; the others (a flow, the assistant, a hand-over) each in its own as it is decided,
 * after what was planned for its conversation, so a customer's replies keep their order.
 */
export async function runAutomations(jobs: Job<AutomationPayload>[], now = () => new Date()) {
  const inbounds = await inboundsOf(
    jobs.map((j) => j.payload),
    now(),
  );
  const byConversation = new Map<string, { inbound: Inbound; attempt: number }[]>();
  for (const job of jobs) {
    const inbound = inbounds.get(job.payload.messageId);
    if (!inbound || inbound.ran) continue;
    const queue = byConversation.get(inbound.conversationId) ?? [];
    queue.push({ inbound, attempt: job.attempts });
    byConversation.set(inbound.conversationId, queue);
  }
  const tally = new BatchTally();
  const planned: Planned[] = [];
  const conversations = [...byConversation.values()];
  const lane = async () => {
    for (let next = conversations.shift(); next; next = conversations.shift()) {
      const mine: Planned[] = [];
      for (const { inbound, attempt } of next) {
        const decision = await decide(inbound, tally, now(), { attempt });
        if (decision.kind === "none") continue;
        if (tally.capped(inbound)) {
          warnCappedOnce(inbound.organizationId, inbound.phoneNumberId);
          continue;
        }
        tally.replied(inbound, decision.answer, holds(decision));
        if (batchable(inbound, decision)) {
          mine.push({ inbound, decision });
          continue;
        }
        // Its own transaction now; what this conversation had planned goes first.
        for (const earlier of mine.splice(0)) await act(earlier.inbound, earlier.decision);
        await act(inbound, decision);
      }
      planned.push(...mine);
    }
  };
  const lanes = Array.from({ length: Math.min(CONVERSATIONS_AT_ONCE, conversations.length) }, lane);
  // Every lane finishes its work before a failure is passed on: the worker then retries the batch one job at a time.
  const outcomes = await Promise.allSettled(lanes);
  await deliverPlanned(planned);
  const failed = outcomes.find((o) => o.status === "rejected");
  if (failed) throw failed.reason;
}
