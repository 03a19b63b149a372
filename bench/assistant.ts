// The AI assistant's own overhead (issue 44's goal: at most 20 ms p99 a reply with 10,000 knowledge
// passages, beside the model's time), on PGlite in process: `assistantAnswer` for a customer's
// message, whole (the settings and the key, the conversation's turns and recent messages, this
// month's usage and cap, retrieval, the prompt, the usage bookkeeping), with the model call replaced
// by one that answers at once, so only Jumbe's part is timed. Beside it, in the same run, a bare
// baseline: one trivial query (`select 1`) on the same database.
//
//   node --import tsx bench/assistant.ts [--passages 10000] [--questions 300] [--rounds 3] [--json]
//
// - One organisation with 2,000 articles of 5 paragraphs (10,000 passages of about 400 characters)
//   drawn by a seeded generator: 3,000 made-up words (the first ones far more often), little words,
//   and English and Swahili business words (one word in ten, so each is in about 8% of the
//   passages: a common question matches hundreds of them), plus a few real articles
//   (paybill, delivery areas, opening hours); a second organisation with 2,000 more passages, so
//   retrieval is tenant-scoped for real.
// - Questions: English and Swahili, most sharing words with some passages, some matching nothing
//   (they hand over without a model call: also timed, they are the cheap path).
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { parseEnv, setEnv } from "../app/.server/infrastructure/config/env";
import { closeDatabase, db, openDatabase } from "../app/.server/infrastructure/db/client";
import { queryRow } from "../app/.server/infrastructure/db/query";
import { organizations } from "../app/.server/infrastructure/db/schema";
import { newBusinessId } from "../app/.server/domains/auth/signup";
import { addArticles } from "../app/.server/domains/automations/assistant/knowledge";
import { saveAssistantSettings } from "../app/.server/domains/automations/assistant/settings";
import { assistantAnswer } from "../app/.server/domains/automations/assistant/answer";
import type { ChatCompletionResult } from "../app/.server/infrastructure/clients/llm";
import type { AutomationInbound } from "../app/.server/domains/automations/answer";

const { values: options } = parseArgs({
  options: {
    passages: { type: "string", default: "10000" },
    questions: { type: "string", default: "300" },
    rounds: { type: "string", default: "3" },
    json: { type: "boolean", default: false },
  },
});
const PASSAGES = Number(options.passages);
const QUESTIONS = Number(options.questions);
const ROUNDS = Number(options.rounds);
const PARAGRAPHS = 5;

let seed = 44;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));

// prettier-ignore
const WORDS = [
  "delivery", "order", "price", "payment", "refund", "account", "card", "loan", "savings", "branch", "hours", "open", "closed",
  "weekend", "holiday", "receipt", "invoice", "statement", "transfer", "deposit", "withdrawal", "balance", "interest", "member",
  "guarantor", "application", "phone", "number", "address", "town", "county", "shop", "stock", "size", "colour", "warranty",
  "bidhaa", "bei", "malipo", "akaunti", "mkopo", "akiba", "tawi", "saa", "kufungua", "kufunga", "sikukuu", "risiti", "salio",
  "riba", "mwanachama", "mdhamini", "ombi", "simu", "anwani", "mji", "kaunti", "duka", "usafirishaji", "rangi", "dhamana",
  "Nairobi", "Mombasa", "Kisumu", "Nakuru", "Eldoret", "Thika", "Westlands", "Kilimani", "Eastleigh", "Embakasi", "Karen",
];
const FILLER = ["the", "and", "for", "with", "within", "every", "na", "kwa", "ya", "wa", "katika", "kila", "is", "are", "ni"];

const SYLLABLES = [
  "ka",
  "ri",
  "mo",
  "ta",
  "ne",
  "lu",
  "si",
  "wa",
  "po",
  "de",
  "ba",
  "ki",
  "zu",
  "me",
  "go",
  "ha",
  "ny",
  "cha",
  "shi",
  "fu",
];
/** 3,000 made-up words, drawn far more often from the start of the list (as real text uses a few words a lot). */
const VOCABULARY = Array.from({ length: 3000 }, () => Array.from({ length: between(2, 4) }, () => pick(SYLLABLES)).join(""));
const word = () => {
  const r = random();
  if (r < 0.25) return pick(FILLER);
  if (r < 0.35) return pick(WORDS);
  return VOCABULARY[Math.floor(VOCABULARY.length * random() ** 2)]!;
};
const sentence = () => Array.from({ length: between(8, 14) }, word).join(" ") + ".";
const paragraph = () => Array.from({ length: 5 }, sentence).join(" ").slice(0, 420);

const REAL = [
  { title: "Paying by M-Pesa", body: "Pay through M-Pesa Paybill 522533, account number your phone number. We confirm by SMS." },
  { title: "Delivery in Nairobi", body: "We deliver in Westlands, Kilimani, Kileleshwa and the CBD within one day for KES 200." },
  { title: "Saa za kazi", body: "Tunafungua saa mbili asubuhi na kufunga saa kumi na mbili jioni, Jumatatu hadi Jumamosi." },
];

const QUESTION_FORMS = [
  () => `What is the ${pick(WORDS)} for ${pick(WORDS)} in ${pick(WORDS)}?`,
  () => `How much is ${pick(WORDS)} ${pick(WORDS)}?`,
  () => `Je, ${pick(WORDS)} ya ${pick(WORDS)} ni ngapi?`,
  () => `Nataka kujua kuhusu ${pick(WORDS)} na ${pick(WORDS)}`,
  () => "What is your paybill number?",
  () => "Mnafungua saa ngapi?",
  () => "delivry to westlnds",
  () => "Do you sell aeroplanes or submarines?",
];

/** An instant model: the answer a real endpoint would give, with its usage, after no wait at all. */
const instantModel = async (): Promise<ChatCompletionResult> => ({
  kind: "answer",
  content: "Lipa kwa Paybill 522533.",
  truncated: false,
  usage: { promptTokens: 420, completionTokens: 12, totalTokens: 432 },
});

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? 0),
    mean: round(sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1)),
  };
};

async function organisation(name: string) {
  const [org] = await db().insert(organizations).values({ name, businessId: newBusinessId(), status: "active" }).returning();
  return org!.id;
}

async function fill(organizationId: string, passages: number, withReal: boolean) {
  const articles = Math.ceil(passages / PARAGRAPHS);
  const actor = { organizationId, userId: null };
  if (withReal) await addArticles(actor, REAL, "manual");
  for (let done = withReal ? REAL.length : 0; done < articles;) {
    const batch = Array.from({ length: Math.min(200, articles - done) }, (_, i) => ({
      title: `${pick(WORDS)} ${pick(WORDS)} ${done + i}`,
      body: Array.from({ length: PARAGRAPHS }, paragraph).join("\n\n"),
    }));
    await addArticles(actor, batch, "manual");
    done += batch.length;
  }
}

/** A customer, their conversation and one message of theirs, as the runner would read them. */
async function conversation(organizationId: string): Promise<Omit<AutomationInbound, "body">> {
  const contact = await queryRow<{ id: string }>(
    db(),
    sql`insert into contacts (organization_id, name, phone) values (${organizationId}, 'Wanjiru Kamau', '+254712345678') returning id`,
  );
  const conv = await queryRow<{ id: string }>(
    db(),
    sql`insert into conversations (organization_id, phone_number_id, contact_id) values (${organizationId}, 'bench-number', ${contact!.id}) returning id`,
  );
  const message = await queryRow<{ id: string }>(
    db(),
    sql`insert into messages (organization_id, contact_id, direction, status, body, phone_number_id)
        values (${organizationId}, ${contact!.id}, 'inbound', 'received', 'Habari', 'bench-number') returning id`,
  );
  return {
    organizationId,
    id: message!.id,
    messageType: "text",
    payload: null,
    phoneNumberId: "bench-number",
    contactId: contact!.id,
    phone: "+254712345678",
    conversationId: conv!.id,
    timeZone: "Africa/Nairobi",
    firstEver: false,
    locale: "en",
  };
}

async function main() {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.bench" }));
  const loadStarted = performance.now();
  await openDatabase({ dataDir: "memory://" });
  const mine = await organisation("Bench Duka Bora");
  const other = await organisation("Bench Other Shop");
  await fill(mine, PASSAGES, true);
  await fill(other, 2000, false);
  await saveAssistantSettings(
    { organizationId: mine, userId: null },
    {
      enabled: true,
      phoneNumberIds: [],
      instructions: "Be brief.",
      baseUrl: "http://127.0.0.1:9/v1",
      model: "bench",
      apiKey: "sk-bench-0000",
      handoverText: "A person will reply.",
      maxTurns: 50,
      monthlyCapCents: 0,
      inputPriceCents: 2000,
      outputPriceCents: 8000,
    },
  );
  await db().execute(sql`update assistant_settings set phone_number_ids = array['bench-number'] where organization_id = ${mine}`);
  const counted = await queryRow<{ n: number }>(
    db(),
    sql`select count(*)::int as n from knowledge_passages where organization_id = ${mine}`,
  );
  const loadSeconds = round((performance.now() - loadStarted) / 1000, 1);
  const inbound = await conversation(mine);
  const questions = Array.from({ length: QUESTIONS }, () => pick(QUESTION_FORMS)());

  const warm = async () => {
    for (const body of questions.slice(0, 30)) await assistantAnswer({ ...inbound, body }, new Date(), { complete: instantModel });
  };
  await warm();
  const assistant: number[] = [];
  const baseline: number[] = [];
  const outcomes = { answer: 0, handover: 0 };
  for (let r = 0; r < ROUNDS; r++) {
    for (const body of questions) {
      let t = performance.now();
      await db().execute(sql`select 1`);
      baseline.push(performance.now() - t);
      t = performance.now();
      const answer = await assistantAnswer({ ...inbound, body }, new Date(), { complete: instantModel });
      assistant.push(performance.now() - t);
      if (r === 0) outcomes[answer?.handover ? "handover" : "answer"]++;
    }
  }
  const result = {
    passages: counted?.n ?? 0,
    otherTenantPassages: 2000,
    questions: QUESTIONS,
    rounds: ROUNDS,
    loadSeconds,
    outcomes,
    assistantMs: summary(assistant),
    baselineMs: summary(baseline),
  };
  if (options.json) console.log(JSON.stringify(result));
  else {
    console.log(`passages ${result.passages} (+${result.otherTenantPassages} another tenant's), loaded in ${loadSeconds} s`);
    console.log(`questions ${QUESTIONS} × ${ROUNDS} rounds; first round: ${outcomes.answer} answered, ${outcomes.handover} handed over`);
    console.log(
      `assistant overhead ms  p50 ${result.assistantMs.p50}  p99 ${result.assistantMs.p99}  max ${result.assistantMs.max}  mean ${result.assistantMs.mean}`,
    );
    console.log(
      `baseline select 1 ms   p50 ${result.baselineMs.p50}  p99 ${result.baselineMs.p99}  max ${result.baselineMs.max}  mean ${result.baselineMs.mean}`,
    );
  }
  await closeDatabase();
}

await main();
