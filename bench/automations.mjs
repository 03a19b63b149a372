// Automations on customers' messages (issue 44): what keyword rules, the welcome and the away message
// add to each inbound WhatsApp message's processing, beside the same load without automations, in
// the same run. Issue 44's budget: "Inbound processing with 500 keyword rules and 20 live flows adds
// at most 2 ms p99 to a message at 1,000 inbound messages a second on PostgreSQL, beside the same run
// without automations." Run B has 500 keyword rules, the welcome and the away message on, and 20 live
// chatbot flows (published, each a question and a message; no rule of the run starts one, so every
// message is checked for a flow it is in, and none is: the decisions stay the rules' own).
//
//   node bench/run.mjs --automations-only                       (1,000 messages a second for 10 s, without then with)
//   node bench/run.mjs --automations-only --automations-rate 100,300 --automations-duration 5
//   node bench/run.mjs --automations-only --automations-cap full   (every message of run B decided, then capped)
//
// - The database: a private PostgreSQL cluster of its own (bench/lib/database.mjs: fsync and
//   synchronous_commit off) with track_commit_timestamp on, so the moment each row was committed can be
//   read back, and pg_stat_statements loaded (database time by statement over each run's load and
//   drain, beside its deadlocks, rolled-back webhook batches and the errors in the cluster's log);
//   --database-url uses that database instead (commit times only if it tracks them). Without
//   PostgreSQL's programs it says so and runs on the embedded PGlite, where the times are the
//   transactions' starts.
// - Each run starts the production build afresh (bench/lib/server.mjs) on the same database and data
//   directory, with the same secrets, so both runs start equally cold; between runs, with the server
//   stopped (PGlite serves one process), the bench changes the demo tenant's automations in SQL:
//   run A has none (no rules, no settings row); run B has `rules` keyword rules (contains, exact,
//   starts_with, fuzzy and regular expressions the product's safety check accepts, about a Sacco's
//   loans, savings and branches, in English and Swahili; a reply each, some with a tag or a cooldown)
//   and the welcome and the away message on, with business hours the run falls outside (today and
//   tomorrow are holidays), the settings' version raised.
// - The demo tenant connects a sandbox number (bench/webhooks.mjs's connectDemoNumber). Each run: a
//   warm-up of location messages (a type automations do not read), then `rate` x `duration` signed
//   inbound text messages, each on its own schedule (open loop), unique wamids, from `customers`
//   customers new to the tenant (each run its own: their first message gets the welcome; numbers ending
//   in 7, as the sandbox fails some endings on purpose, 0190 with an expired token), the same
//   texts and customer order in both runs; every tenth text matches a rule (checked beforehand with the
//   product's matcher, bench/lib/automation-rules-check.ts, which also times the matching alone).
// - Per message, from the database once the server has stopped: delivered = webhook_events.received_at
//   (the start of the ingest transaction that stored it; the 200 follows its commit); stored = the
//   commit of the transaction that wrote the message (its inbox_events row, never updated); in run B,
//   automation done = the commit of its automation_runs row (the reply queued with it) or, for a message
//   automations left unanswered, of its job's completion (its batch's end); a message that got no job
//   (its webhook batch's arrival job decided that nothing answers it: run.ts enqueueAutomations) is
//   done when that arrival job committed. "Processed" is stored in
//   run A and automation done in run B: their p50 and p99 differ by what automations add.
// - The drain: GET /api/admin/queue every 500 ms (its count of webhook_events grows with the table: at
//   200 ms it cost PostgreSQL a tenth of a CPU here) until the webhooks and the jobs are done. CPU of the
//   server, PostgreSQL, this process (the load) and the rest of the machine over the load and drain.
// - The Meta sandbox's status webhooks for the replies are held (META_SANDBOX_STATUS_DELAYS_MS 600 s),
//   so only the inbound messages arrive during the runs; --automations-status-webhooks lets them come
//   at the sandbox's usual delays. The replies themselves are sent by the dispatcher meanwhile (the
//   sandbox refuses them with 131047 at once, META_SANDBOX_REENGAGEMENT=sync: it has no window open, as
//   these inbound messages did not go through it; the refusal costs the dispatcher about what an
//   acceptance would).
// - The number's hourly cap of 1,000 automated replies (run.ts): fresh at the start of run B by
//   default (earlier runs' rows moved two hours back), so its first replies are queued, then it is
//   reached; --automations-cap full starts run B with the hour's 1,000 replies already made (rows on
//   the tenant's older messages), so every message is decided, then capped: the steady state of a
//   number at 1,000 messages a second.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { postgresDurability, startPrivatePostgres, withDatabase } from "./lib/database.mjs";
import { signIn } from "./lib/http.mjs";
import { FAMILY_NAMES, FIRST_NAMES } from "./lib/names.mjs";
import { cpuBetween, cpuOf, machineBusySeconds } from "./lib/proc.mjs";
import { startServer } from "./lib/server.mjs";
import {
  connectDemoNumber,
  inboundTextDelivery,
  isDrained,
  newAppSecret,
  queueState,
  settle,
  signedDelivery,
  WEBHOOK_PATH,
} from "./webhooks.mjs";

const AUTOMATION_QUEUE = "automations.inbound";
const ARRIVAL_QUEUE = "automations.arrival";
const POLL_MS = 500;
export const BUDGET_P99_MS = 2;
/** Replies one business number may send in an hour (app/.server/domains/automations/run.ts). */
const NUMBER_HOURLY_CAP = 1000;
const WARM_UP_SECONDS = 1;
/** Every this many messages one matches a keyword rule. */
const MATCH_EVERY = 10;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** A seeded generator: every run draws the same texts and customers. */
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const quantile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] : null);
function distribution(values) {
  const sorted = values.filter((v) => typeof v === "number" && Number.isFinite(v)).sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? null,
    mean: sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : null,
  };
}

// ---------------------------------------------------------------------------------------------
// The rules: a Sacco's topics (the demo tenant is Nyota Savings Sacco), in English and Swahili

// prettier-ignore
const TOPICS = [
  ["loan limit", "kiwango cha mkopo"], ["loan balance", "deni la mkopo"], ["loan statement", "taarifa ya mkopo"],
  ["emergency loan", "mkopo wa dharura"], ["development loan", "mkopo wa maendeleo"], ["school fees loan", "mkopo wa karo"],
  ["asset finance", "mkopo wa mali"], ["loan top up", "kuongeza mkopo"], ["loan application", "kuomba mkopo"],
  ["guarantor form", "fomu ya mdhamini"], ["share capital", "hisa zangu"], ["monthly deposit", "akiba ya mwezi"],
  ["dividend payout", "malipo ya gawio"], ["interest rebate", "riba ya akiba"], ["agm date", "mkutano mkuu"],
  ["paybill number", "namba ya paybill"], ["mpesa deposit", "kuweka kupitia mpesa"], ["cash withdrawal", "kutoa pesa"],
  ["fosa account", "akaunti ya fosa"], ["atm card", "kadi ya atm"], ["pin reset", "kubadilisha pin"],
  ["mobile banking", "huduma ya simu"], ["registration fee", "ada ya usajili"], ["member number", "namba ya uanachama"],
  ["next of kin", "mrithi wangu"], ["change phone number", "kubadilisha namba ya simu"], ["office hours", "saa za kazi"],
  ["branch location", "tawi lenu"], ["funeral cover", "bima ya mazishi"], ["medical cover", "bima ya afya"],
  ["standing order", "agizo la kudumu"], ["check off", "makato ya mshahara"], ["loan insurance", "bima ya mkopo"],
  ["late penalty", "faini ya kuchelewa"], ["loan arrears", "malimbikizo ya mkopo"], ["clearance letter", "barua ya kuondoka"],
  ["exit membership", "kujiondoa chama"], ["junior account", "akaunti ya watoto"], ["holiday savings", "akiba ya sikukuu"],
  ["fixed deposit", "amana ya muda"], ["interest rate", "kiwango cha riba"], ["loan calculator", "kikokotoo cha mkopo"],
  ["approval status", "hali ya ombi"], ["loan disbursement", "kupokea mkopo"], ["mpesa reversal", "kurudishiwa pesa"],
  ["salary advance", "mshahara wa mapema"], ["business loan", "mkopo wa biashara"], ["farm loan", "mkopo wa kilimo"],
  ["housing loan", "mkopo wa nyumba"], ["chama account", "akaunti ya chama"],
].map(([en, sw]) => ({ en, sw, slug: en.replace(/\s+/g, "-") }));
// prettier-ignore
const QUALIFIERS = [
  ["", ""], ["nakuru", "nakuru"], ["eldoret", "eldoret"], ["kisumu", "kisumu"], ["naivasha", "naivasha"],
  ["online", "mtandaoni"], ["2026", "2026"], ["urgent", "haraka"], ["details", "maelezo"], ["form", "fomu"],
];
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * `count` rules in their order (position 1 first): for rule i, topic i mod 50 with qualifier
 * floor(i / 50) (a branch, "online", a year...), so the first 50 are the plain topics; a match type
 * drawn with weights contains 35%, fuzzy 25%, exact 15%, starts_with 15%, regex 10%; the English and
 * the Swahili phrase as its keywords (one alternation for a regular expression). Each replies; one in
 * five adds a tag, one in four has a 60-minute cooldown.
 */
export function buildRules(count) {
  const random = seeded(44);
  const rules = [];
  for (let i = 0; i < count; i++) {
    const topic = TOPICS[i % TOPICS.length];
    const [qEn, qSw] = QUALIFIERS[Math.floor(i / TOPICS.length) % QUALIFIERS.length];
    const round = Math.floor(i / (TOPICS.length * QUALIFIERS.length));
    const extra = round ? String(round + 1) : "";
    const en = [topic.en, qEn, extra].filter(Boolean).join(" ");
    const sw = [topic.sw, qSw, extra].filter(Boolean).join(" ");
    const draw = random();
    const matchType = draw < 0.35 ? "contains" : draw < 0.6 ? "fuzzy" : draw < 0.75 ? "exact" : draw < 0.9 ? "starts_with" : "regex";
    const keywords = matchType === "regex" ? [`\\b(?:${escapeRegex(en)}|${escapeRegex(sw)})\\b`] : [en, sw];
    const actions = [
      {
        type: "reply",
        text: `Asante kwa ujumbe wako kuhusu ${sw}. Thank you for asking about ${en}: details at nyota.co.ke/${topic.slug}, or call 0711 000 001 (Mon-Fri 8am-5pm).`,
      },
    ];
    if (i % 5 === 2) actions.push({ type: "tags", add: [topic.slug], remove: [] });
    rules.push({
      name: `${topic.en}${qEn ? ` (${qEn})` : ""}${extra ? ` ${extra}` : ""}`.replace(/^./, (c) => c.toUpperCase()),
      matchType,
      keywords,
      threshold: matchType === "fuzzy" ? 0.8 : null,
      cooldownMinutes: i % 4 === 1 ? 60 : 0,
      actions,
      position: i + 1,
      en,
      sw,
    });
  }
  return rules;
}

// Customers' messages that name no rule's topic (what most people write).
const CHATTER = [
  "Habari za asubuhi",
  "Asante sana kwa msaada wenu",
  "Sawa, nitapita ofisini kesho asubuhi",
  "Please call me back on this number",
  "Good afternoon, I need some help",
  "Nimetuma ujumbe jana lakini sijajibiwa",
  "Ok thanks",
  "Who am I speaking to?",
  "Nitarudi kwenu baadaye",
  "Mungu awabariki",
  "Nataka kuongea na mtu, si robot",
  "Is anyone there?",
  "Nimepokea, asante",
  "I sent the money yesterday evening, please confirm",
  "Hii ni namba yangu mpya",
  "Thank you, received",
  "Naomba mnipigie",
  "Good evening. I have a question about last month",
  "Sijaelewa vizuri, mnaweza kueleza tena?",
  "Kesho ni sikukuu, mtafungua?",
  "Habari yako",
  "Please ignore my earlier message",
  "Niko njiani kuja ofisini",
  "The app is not opening on my phone",
  "Mtanitumia ujumbe lini?",
  "Can I send my documents by email?",
  "Nimesahau nywila yangu ya app",
  "My husband wants to join as well",
  "Tafadhali nitumie risiti",
  "Nashukuru kwa huduma nzuri",
  "Where do I get the forms?",
  "I will come on Monday",
  "Je, mnafanya kazi Jumamosi?",
  "Hello 👋",
  "🙏🙏",
  "Sawa",
  "Good morning Nyota",
  "Naomba maelezo zaidi",
  "Thank you so much, God bless",
  "Nimeshindwa kuingia kwa app",
  "Good morning. I visited the Nakuru office on Tuesday and was told to wait for a call, but nobody has called me yet. Kindly follow up.",
  "Habari, mimi ni mwanachama tangu 2019. Nilibadilisha kazi mwezi uliopita na ningependa kujua nifanye nini kuhusu michango yangu.",
  "Hi, my daughter opened an account with you last week. She has not received any message since then, is that normal?",
  "Nilikuja ofisini Eldoret leo lakini foleni ilikuwa ndefu sana. Nitarudi wiki ijayo.",
];

const FRAMES_EN = ["Hello, I would like to know about {kw}.", "Please help me with {kw}", "Good morning, {kw}?", "Hi, {kw} please"];
const FRAMES_SW = ["Habari, naomba kujua kuhusu {kw}", "Nisaidie na {kw} tafadhali", "Shikamoo, {kw} iko aje?", "Sasa, {kw}?"];
const TAILS = ["tafadhali", "please", "ni ngapi?", "for my account", "leo", "🙏"];
const capital = (text) => text.replace(/^./, (c) => c.toUpperCase());

/** One letter left out of the keyword's longest word of five or more letters: a typo a fuzzy rule forgives. */
function typo(text) {
  const words = text.split(" ");
  let at = -1;
  for (let i = 0; i < words.length; i++) if (/^\p{L}{5,}$/u.test(words[i]) && (at < 0 || words[i].length > words[at].length)) at = i;
  if (at < 0) return text;
  const word = words[at];
  words[at] = word.slice(0, 2) + word.slice(3);
  return words.join(" ");
}

/** A customer's message written to match `rule` (it may match an earlier rule first: the check says). */
function matchingText(rule, random) {
  const swahili = random() < 0.5;
  const keyword = swahili ? rule.sw : rule.en;
  const frame = (swahili ? FRAMES_SW : FRAMES_EN)[Math.floor(random() * 4)];
  switch (rule.matchType) {
    case "exact":
      return `${capital(keyword)}${["", "?", "!", " 🙏"][Math.floor(random() * 4)]}`;
    case "starts_with":
      return `${capital(keyword)} ${TAILS[Math.floor(random() * TAILS.length)]}`;
    case "fuzzy":
      return frame.replace("{kw}", typo(keyword));
    default:
      return frame.replace("{kw}", keyword);
  }
}

/**
 * The product's matcher on the bench's rules and texts (bench/lib/automation-rules-check.ts, in a
 * child process under tsx): for each text the first rule it matches, the keywords skipped, and the
 * microseconds a text takes to find its rule. Null with a reason when it cannot run.
 */
function checkWithMatcher(root, rules, texts) {
  const result = spawnSync(process.execPath, ["--import", "tsx", path.join(root, "bench/lib/automation-rules-check.ts")], {
    cwd: root,
    input: JSON.stringify({ rules: rules.map(({ matchType, keywords, threshold }) => ({ matchType, keywords, threshold })), texts }),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) return { problem: (result.stderr || result.error?.message || "failed").trim().slice(-400) };
  return JSON.parse(result.stdout);
}

/**
 * The texts of a run, and the matcher's verdict: `matchingPool` texts each written for a rule (those
 * the matcher says match no rule are left out), and the chatter that matches none.
 */
function prepareTexts(root, rules) {
  const random = seeded(4404);
  const written = [];
  for (let k = 0; k < 1000; k++) written.push(matchingText(rules[(k * 7919) % rules.length], random));
  const texts = [...new Set([...CHATTER, ...written])];
  const check = checkWithMatcher(root, rules, texts);
  if (check.problem)
    return { matching: written, chatter: CHATTER, check: { problem: check.problem }, microsOf: () => null, ruleOf: () => null };
  const verdict = new Map(texts.map((text, i) => [text, { match: check.matches[i], micros: check.micros[i] }]));
  return {
    matching: written.filter((t) => verdict.get(t).match),
    chatter: CHATTER.filter((t) => !verdict.get(t).match),
    check: {
      skippedKeywords: check.skipped,
      writtenToMatch: written.length,
      writtenButMatchingNone: written.filter((t) => !verdict.get(t).match).length,
      chatterMatchingARule: CHATTER.filter((t) => verdict.get(t).match),
    },
    microsOf: (text) => verdict.get(text)?.micros ?? null,
    ruleOf: (text) => verdict.get(text)?.match?.rule ?? null,
  };
}

/** The messages of a run: every MATCH_EVERY-th matches a rule; customers drawn evenly from the pool. */
function messagePlan({ total, customers, texts, seed }) {
  const random = seeded(seed);
  const plan = [];
  let m = 0;
  for (let n = 0; n < total; n++) {
    const text =
      n % MATCH_EVERY === 0 && texts.matching.length
        ? texts.matching[m++ % texts.matching.length]
        : texts.chatter[Math.floor(random() * texts.chatter.length)];
    plan.push({ text, customer: Math.floor(random() * customers) });
  }
  return plan;
}

/**
 * What automations would answer each message with no cap: a rule (its cooldown kept per customer), the
 * welcome for a customer's first message, the away message once a conversation, else nothing.
 */
function expectedDecisions(plan, rules, ruleOf) {
  const counts = { rule: 0, cooldown: 0, welcome: 0, away: 0, none: 0 };
  const seen = new Set();
  const awaySent = new Set();
  const fired = new Set();
  for (const { text, customer } of plan) {
    const rule = ruleOf(text);
    const first = !seen.has(customer);
    seen.add(customer);
    if (rule !== null && rule !== undefined) {
      const key = `${customer}:${rule}`;
      if (rules[rule].cooldownMinutes > 0 && fired.has(key)) counts.cooldown++;
      else {
        counts.rule++;
        fired.add(key);
      }
    } else if (first) counts.welcome++;
    else if (!awaySent.has(customer)) {
      counts.away++;
      awaySent.add(customer);
    } else counts.none++;
  }
  return { ...counts, replies: counts.rule + counts.welcome + counts.away };
}

// ---------------------------------------------------------------------------------------------
// Deliveries and load

/**
 * Customer `i` (below 100,000) of run `run`: numbers no real person has, new to the tenant in each
 * run, all ending in 7: the Meta sandbox answers numbers ending 0190 with an expired token (which
 * would stop the number sending), 0000, 0047, 0429, 0500 or 1056 with other failures.
 */
function customer(run, i) {
  return {
    from: `2547${String(run % 100).padStart(2, "0")}${String(i).padStart(5, "0")}7`,
    name: `${FIRST_NAMES[i % FIRST_NAMES.length]} ${FAMILY_NAMES[Math.floor(i / FIRST_NAMES.length) % FAMILY_NAMES.length]}`,
  };
}

/** A signed inbound location message (a type automations do not read), for the warm-up. */
function locationDelivery({ appSecret, target, from, name, wamid, at = Date.now() }) {
  const body = JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: target.wabaId,
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: target.displayPhoneNumber, phone_number_id: target.phoneNumberId },
              contacts: [{ profile: { name }, wa_id: from }],
              messages: [
                {
                  from,
                  id: wamid,
                  timestamp: String(Math.floor(at / 1000)),
                  type: "location",
                  location: { latitude: -0.2827, longitude: 36.0664, name: "Nyota Sacco, Nakuru", address: "Kenyatta Avenue, Nakuru" },
                },
              ],
            },
          },
        ],
      },
    ],
  });
  return signedDelivery(appSecret, body);
}

/**
 * Posts the signed `bodies` at `rate` a second, each on its own schedule (open loop: not after the
 * previous answer), over keep-alive connections. Resolves once every answer is in.
 */
/** `bodies` posted at `rate` a second, open loop, to `urls` in turn (as nginx spreads them over its upstream). */
async function sendSteady(urls, { rate, bodies }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const sends = [];
  const pending = new Set();
  const post = ({ body, signature }) => {
    const record = { started: performance.now(), answered: null, status: 0 };
    sends.push(record);
    const done = new Promise((resolve) => {
      const outgoing = http.request(
        urls[sends.length % urls.length],
        {
          method: "POST",
          agent,
          headers: { "Content-Type": "application/json", "X-Hub-Signature-256": signature, "Content-Length": body.length },
        },
        (response) => {
          response.resume();
          response.on("end", () => {
            record.answered = performance.now();
            record.status = response.statusCode ?? 0;
            resolve();
          });
        },
      );
      outgoing.setTimeout(30_000, () => outgoing.destroy(new Error("timed out")));
      outgoing.on("error", () => resolve());
      outgoing.end(body);
    });
    pending.add(done);
    void done.then(() => pending.delete(done));
  };
  const interval = 1000 / rate;
  const begun = performance.now();
  let behindMaxMs = 0;
  for (let n = 0; n < bodies.length;) {
    const due = begun + n * interval;
    const now = performance.now();
    if (now < due - 0.5) {
      await sleep(due - now);
      continue;
    }
    behindMaxMs = Math.max(behindMaxMs, now - due);
    post(bodies[n++]);
  }
  const sendSeconds = (performance.now() - begun) / 1000;
  await Promise.all([...pending]);
  agent.destroy();
  const statuses = {};
  for (const s of sends) statuses[s.status || "error"] = (statuses[s.status || "error"] ?? 0) + 1;
  const acknowledged = distribution(sends.filter((s) => s.answered !== null).map((s) => s.answered - s.started));
  return { sent: sends.length, ok: statuses["200"] ?? 0, statuses, sendSeconds, behindMaxMs, acknowledged };
}

/**
 * The measured load, with the queue polled every POLL_MS from its start until the webhooks and jobs
 * are done (or `drainTimeoutMs` after the load), and the CPU each part of the machine used meanwhile.
 */
async function measuredLoad({ baseUrl, webhookUrls, adminCookie, bodies, rate, drainTimeoutMs, serverPids, databasePids }) {
  const before = await settle(baseUrl, adminCookie, { timeoutMs: drainTimeoutMs });
  const cpuBefore = {
    server: cpuOf(serverPids),
    database: cpuOf(databasePids()),
    self: process.cpuUsage(),
    machine: machineBusySeconds(),
  };
  const started = performance.now();
  let loadEndedAt = null;
  const load = sendSteady(webhookUrls, { rate, bodies }).then((result) => {
    loadEndedAt = performance.now();
    return result;
  });
  const samples = [];
  let pollErrors = 0;
  let sending = null;
  let drained = null;
  for (;;) {
    const tick = performance.now();
    try {
      const state = await queueState(baseUrl, adminCookie);
      const automations = state.jobs.find((q) => q.queue === AUTOMATION_QUEUE);
      samples.push({
        atMs: Math.round(state.at - started),
        received: state.received - before.received,
        unprocessed: state.unprocessed,
        pending: state.pending,
        automationJobs: automations ? Number(automations.ready) + Number(automations.running) : 0,
        duringLoad: loadEndedAt === null,
      });
      if (loadEndedAt !== null && !sending) sending = await load;
      if (sending && tick > loadEndedAt && state.received - before.received >= sending.ok && isDrained(state)) {
        drained = { ...state, atMs: state.at - started };
        break;
      }
    } catch {
      pollErrors++;
    }
    if (loadEndedAt !== null && performance.now() - loadEndedAt > drainTimeoutMs) break;
    await sleep(POLL_MS - (performance.now() - tick));
  }
  sending ??= await load;
  const seconds = (performance.now() - started) / 1000;
  const self = process.cpuUsage(cpuBefore.self);
  const server = cpuBetween(cpuBefore.server, cpuOf(serverPids)) / seconds;
  const database = databasePids().length ? cpuBetween(cpuBefore.database, cpuOf(databasePids())) / seconds : null;
  const loadGenerator = (self.user + self.system) / 1e6 / seconds;
  const machine = (machineBusySeconds() - cpuBefore.machine) / seconds;
  const loadSeconds = (loadEndedAt - started) / 1000;
  return {
    sending,
    loadSeconds,
    drained: !!drained,
    drainedAtSeconds: drained ? drained.atMs / 1000 : null,
    drainAfterLoadSeconds: drained ? Math.max(0, drained.atMs / 1000 - loadSeconds) : null,
    drainTimeoutSeconds: drainTimeoutMs / 1000,
    peakBacklog: samples.reduce((peak, s) => Math.max(peak, s.unprocessed + s.pending), 0),
    peakWebhookBacklog: samples.reduce((peak, s) => Math.max(peak, s.unprocessed), 0),
    peakAutomationJobs: samples.reduce((peak, s) => Math.max(peak, s.automationJobs), 0),
    pollErrors,
    cpuCores: { server, database, loadGenerator, other: Math.max(0, machine - server - (database ?? 0) - loadGenerator), seconds },
  };
}

// ---------------------------------------------------------------------------------------------
// The tenant's automations, in SQL while the server is stopped

async function demoTenant(query, email) {
  const [row] = await query(
    `select u.id as user_id, u.organization_id, o.time_zone from users u join organizations o on o.id = u.organization_id where lower(u.email) = lower($1)`,
    [email],
  );
  if (!row) throw new Error(`no demo user ${email}`);
  return { userId: row.user_id, organizationId: row.organization_id, timeZone: row.time_zone };
}

/** Run A: a tenant without automations (no rules, no settings row, no flows, no assistant). */
async function removeAutomations(query, tenant) {
  await query(`delete from automation_rules where organization_id = $1`, [tenant.organizationId]);
  await query(`delete from automation_settings where organization_id = $1`, [tenant.organizationId]);
  await query(`delete from flows where organization_id = $1`, [tenant.organizationId]);
  // The demo's AI assistant answers on its number: off in both runs (a model call is not what this measures).
  await query(`delete from assistant_settings where organization_id = $1`, [tenant.organizationId]);
  // The demo's connectors (HubSpot logs every message, Sheets exports them): off in both runs too.
  await query(`update integration_connections set status = 'disconnected', disconnected_at = now() where organization_id = $1`, [
    tenant.organizationId,
  ]);
}

/** The live chatbot flows of run B. */
export const LIVE_FLOWS = 20;

/** Run B's flows: published (a version each) and live, a question and a message each. */
async function installFlows(query, tenant) {
  for (let i = 1; i <= LIVE_FLOWS; i++) {
    const steps = [
      {
        id: "ask",
        type: "question",
        text: `Mkopo ${i}: namba yako ya uanachama ni ipi?`,
        input: "text",
        validate: "number",
        variable: "member",
        retryText: "Tafadhali andika namba.",
        maxTries: 3,
        giveUpTo: "end",
      },
      { id: "done", type: "message", text: "Asante! Afisa atakupigia leo." },
    ];
    const [flow] = await query(`insert into flows (organization_id, name, steps, created_by) values ($1, $2, $3::jsonb, $4) returning id`, [
      tenant.organizationId,
      `Mkopo wa haraka ${i}`,
      JSON.stringify(steps),
      tenant.userId,
    ]);
    const [version] = await query(
      `insert into flow_versions (flow_id, version, steps, published_by) values ($1, 1, $2::jsonb, $3) returning id`,
      [flow.id, JSON.stringify(steps), tenant.userId],
    );
    await query(`update flows set live_version_id = $1, status = 'live' where id = $2`, [version.id, flow.id]);
  }
  const [count] = await query(`select count(*)::int as n from flows where organization_id = $1 and status = 'live'`, [
    tenant.organizationId,
  ]);
  return count.n;
}

/** Business hours, today and tomorrow holidays: the run falls outside them, so the away message answers. */
function hoursOutsideNow(timeZone) {
  const localDate = (at) => new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
  const weekday = [{ from: "08:00", to: "17:00" }];
  return {
    hours: { 0: [], 1: weekday, 2: weekday, 3: weekday, 4: weekday, 5: weekday, 6: [{ from: "09:00", to: "13:00" }] },
    holidays: [localDate(new Date()), localDate(new Date(Date.now() + 86_400_000))],
  };
}

const WELCOME_TEXT =
  "Karibu Nyota Savings Sacco! 👋 Asante kwa kutuandikia. Welcome to Nyota Sacco: an officer will answer you shortly. For your balance dial *522*1# or use the Nyota app.";
const AWAY_TEXT =
  "Habari! Ofisi zetu zimefungwa kwa sasa; tutakujibu tukifungua saa mbili asubuhi. Our offices are closed now (Mon-Fri 8am-5pm, Sat 9am-1pm): we will reply when we open.";

/** Run B: the rules, the welcome and the away message; the settings' version raised; the hourly caps afresh. */
async function installAutomations(query, tenant, rules, { capFull, phoneNumberId }) {
  await removeAutomations(query, tenant);
  const rows = rules.map((r) => ({
    name: r.name,
    match_type: r.matchType,
    keywords: r.keywords,
    threshold: r.threshold,
    cooldown_minutes: r.cooldownMinutes,
    actions: r.actions,
    position: r.position,
  }));
  await query(
    `insert into automation_rules (organization_id, name, match_type, keywords, threshold, cooldown_minutes, actions, position, created_by)
     select $1, r.name, r.match_type, r.keywords, r.threshold, r.cooldown_minutes, r.actions, r.position, $2
     from jsonb_to_recordset($3::jsonb) as r(name text, match_type text, keywords text[], threshold real, cooldown_minutes int, actions jsonb, position int)`,
    [tenant.organizationId, tenant.userId, JSON.stringify(rows)],
  );
  const flows = await installFlows(query, tenant);
  const { hours, holidays } = hoursOutsideNow(tenant.timeZone);
  await query(
    `insert into automation_settings (organization_id, welcome_enabled, welcome_text, away_enabled, away_text, hours, holidays, holiday_mode, version, updated_by)
     values ($1, true, $2, true, $3, $4::jsonb, $5::text[], false, $6, $7)`,
    [
      tenant.organizationId,
      WELCOME_TEXT,
      AWAY_TEXT,
      JSON.stringify(hours),
      holidays,
      (tenant.version = (tenant.version ?? 0) + 1),
      tenant.userId,
    ],
  );
  // An earlier run's replies would count towards this hour's caps (1,000 a number): moved out of it.
  await query(
    `update automation_runs set created_at = created_at - interval '2 hours' where organization_id = $1 and created_at > now() - interval '2 hours'`,
    [tenant.organizationId],
  );
  // --automations-cap full: the number has sent its hour's replies already (rows on messages of the
  // tenant that have none; reply ids that point nowhere), so every message is decided, then capped: a
  // tenant's steady state at 1,000 messages a second.
  if (capFull)
    await query(
      `insert into automation_runs (organization_id, message_id, phone_number_id, kind, reply_id, created_at)
       select $1, m.id, $2, 'welcome', gen_random_uuid(), now() - interval '30 minutes'
       from messages m where m.organization_id = $1 and not exists (select 1 from automation_runs r where r.message_id = m.id)
       limit $3`,
      [tenant.organizationId, phoneNumberId, NUMBER_HOURLY_CAP],
    );
  // BENCH_AUTOMATIONS_SEND_RATE=<n>: the number sends n messages a second in run B (the replies are
  // composed and queued, and mostly wait past the run): what composing and queueing them costs
  // without sending them. An experiment, not one of the three cases.
  if (process.env.BENCH_AUTOMATIONS_SEND_RATE)
    await query(
      `insert into sending_buckets (phone_number_id, rate, tokens) values ($1, $2, 0)
       on conflict (phone_number_id) do update set rate = excluded.rate, tokens = 0, refilled_at = now(), reserved_until = null`,
      [phoneNumberId, Number(process.env.BENCH_AUTOMATIONS_SEND_RATE)],
    );
  const [count] = await query(
    `select (select count(*)::int from automation_rules where organization_id = $1 and enabled) as rules,
            (select count(*)::int from automation_runs where phone_number_id = $2 and reply_id is not null and created_at > now() - interval '1 hour') as replies_this_hour`,
    [tenant.organizationId, phoneNumberId],
  );
  return { rules: count.rules, flows, repliesThisHour: count.replies_this_hour, hours, holidays };
}

// ---------------------------------------------------------------------------------------------
// Per-message times, from the database once the server has stopped

/**
 * Each message of run `tag`: when its delivery was received, stored and (run B) answered, in epoch
 * milliseconds. With commit timestamps the commits of the rows' transactions; without, their starts.
 */
async function messageTimes(query, { tag, tenant, commitTimestamps }) {
  const ms = (expression) => `(extract(epoch from ${expression}) * 1000)::float8`;
  const committed = (alias) => (commitTimestamps ? ms(`pg_xact_commit_timestamp(${alias}.xmin)`) : "null::float8");
  return query(
    `with ev as (
       select substring(body from '"id":"(wamid\\.${tag}\\.[0-9]+)"') as wamid, received_at
       from webhook_events where body like $2
     ), arrivals as (
       -- The arrival job that decided each message (run.ts queueAutomationsArrival): one a webhook batch.
       select (e->>'messageId')::uuid as message_id, a.finished_at, ${commitTimestamps ? "pg_xact_commit_timestamp(a.xmin)" : "null::timestamptz"} as committed
       from jobs a cross join lateral jsonb_array_elements(a.payload->'messages') e
       where a.queue = '${ARRIVAL_QUEUE}' and a.created_at > now() - interval '1 hour'
     ), logged as (
       select message_id, min(${commitTimestamps ? "pg_xact_commit_timestamp(xmin)" : "created_at"}) as at
       from inbox_events where organization_id = $1 and kind = 'message' group by message_id
     )
     select ${ms("ev.received_at")} as received,
            ${ms("m.created_at")} as stored_start,
            ${commitTimestamps ? ms("l.at") : "null::float8"} as stored_commit,
            r.kind as run_kind, r.reply_id is not null as replied,
            ${ms("r.created_at")} as run_start, ${committed("r")} as run_commit,
            j.id is not null as has_job, j.failed_at is not null as job_failed,
            ${ms("j.finished_at")} as job_finished, ${committed("j")} as job_commit,
            ${ms("a.finished_at")} as arrival_finished, ${ms("a.committed")} as arrival_commit
     from ev
     join messages m on m.organization_id = $1 and m.wamid = ev.wamid
     left join logged l on l.message_id = m.id
     left join automation_runs r on r.message_id = m.id
     left join arrivals a on a.message_id = m.id
     left join jobs j on j.queue = '${AUTOMATION_QUEUE}' and j.payload->>'messageId' = m.id::text`,
    [tenant.organizationId, `%wamid.${tag}.%`],
  );
}

/** The database's deadlocks and rolled-back transactions so far (pg_stat_database; PostgreSQL only). */
async function counters(query) {
  const [row] = await query(
    `select deadlocks::float8 as deadlocks, xact_rollback::float8 as rolled_back from pg_stat_database where datname = current_database()`,
  );
  return { deadlocks: row.deadlocks, rolledBack: row.rolled_back };
}

/** The statements that took the most database time since the last reset (pg_stat_statements), and the total: 60 in the JSON report, 12 printed. */
async function topStatements(query, count = 60) {
  const rows = await query(
    `select regexp_replace(query, '\\s+', ' ', 'g') as query, calls::float8 as calls, total_exec_time as ms
     from pg_stat_statements where query not like '%pg_stat_statements%' order by total_exec_time desc`,
  );
  const totalMs = rows.reduce((sum, r) => sum + r.ms, 0);
  const rollbacks = rows.filter((r) => /^rollback to savepoint webhook_apply/i.test(r.query)).reduce((sum, r) => sum + r.calls, 0);
  return { totalMs, rollbacks, top: rows.slice(0, count).map((r) => ({ ms: r.ms, calls: r.calls, query: r.query.slice(0, 160) })) };
}

const fileSize = (file) => {
  try {
    return statSync(file).size;
  } catch {
    return null;
  }
};

/** The ERROR lines PostgreSQL logged since `offset` in its log file, counted by message (numbers masked). */
function databaseErrors(file, offset) {
  if (offset === null) return null;
  let text;
  try {
    text = readFileSync(file).subarray(offset).toString("utf8");
  } catch {
    return null;
  }
  const counts = new Map();
  for (const match of text.matchAll(/ERROR:\s+(.*)/g)) {
    const message = match[1].replace(/\d+/g, "N").slice(0, 120);
    counts.set(message, (counts.get(message) ?? 0) + 1);
  }
  // The first deadlock as PostgreSQL describes it: who waited for what, and the statement.
  const deadlock = text.match(/ERROR:\s+deadlock detected[^\n]*\n((?:.*\t.*\n|.*(?:DETAIL|HINT|CONTEXT|STATEMENT):.*\n){1,12})/);
  return {
    counts: [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([message, n]) => ({ message, n })),
    firstDeadlock: deadlock
      ? deadlock[1]
          .split("\n")
          .map((line) => line.replace(/^.*?(DETAIL|HINT|CONTEXT|STATEMENT):\s*/, "$1: ").trim())
          .filter((line) => /^(DETAIL|Process|CONTEXT)/.test(line))
          .slice(0, 6)
          .map((line) => line.slice(0, 240))
      : null,
  };
}

/** The run's figures from its messages' times. */
function figuresOf(rows, { kind, total }) {
  let fellBack = 0;
  const pick = (commit, start) => {
    if (commit !== null && commit !== undefined) return commit;
    if (start !== null && start !== undefined) fellBack++;
    return start ?? null;
  };
  const messages = rows.map((r) => {
    const stored = pick(r.stored_commit, r.stored_start);
    // No job: its arrival job decided that nothing answers it (run.ts enqueueAutomations); done
    // when that job committed (stored, for a message no arrival job read).
    const arrived = r.arrival_finished !== null ? pick(r.arrival_commit, r.arrival_finished) : stored;
    const done = r.run_kind
      ? pick(r.run_commit, r.run_start)
      : !r.has_job
        ? arrived
        : r.job_finished !== null
          ? pick(r.job_commit, r.job_finished)
          : null;
    return {
      received: r.received,
      stored,
      done,
      kind: r.run_kind,
      replied: r.replied,
      hasJob: r.has_job,
      jobFailed: r.job_failed,
      arrivalRead: r.arrival_finished !== null,
    };
  });
  const storedMs = messages.map((m) => m.stored - m.received);
  const processedAt = (m) => (kind === "A" ? m.stored : m.done);
  const processed = messages.filter((m) => processedAt(m) !== null);
  const firstReceived = messages.reduce((first, m) => Math.min(first, m.received), Infinity);
  const lastProcessed = processed.reduce((last, m) => Math.max(last, processedAt(m)), -Infinity);
  const decisions = { rule: 0, welcome: 0, away: 0, replies: 0, noRun: 0, noJob: 0 };
  for (const m of messages) {
    if (m.kind) decisions[m.kind] = (decisions[m.kind] ?? 0) + 1;
    else if (m.hasJob) decisions.noRun++;
    else decisions.noJob++;
    if (m.replied) decisions.replies++;
  }
  return {
    found: messages.length,
    missing: total - messages.length,
    stored: distribution(storedMs),
    processed: distribution(processed.map((m) => processedAt(m) - m.received)),
    unprocessed: messages.length - processed.length,
    automationStep: kind === "B" ? distribution(processed.map((m) => m.done - m.stored)) : null,
    replyQueued: kind === "B" ? distribution(messages.filter((m) => m.replied).map((m) => m.done - m.received)) : null,
    processedPerSecond:
      processed.length && lastProcessed > firstReceived ? processed.length / ((lastProcessed - firstReceived) / 1000) : null,
    spanSeconds: processed.length ? (lastProcessed - firstReceived) / 1000 : null,
    automationJobs: messages.filter((m) => m.hasJob).length,
    // Messages no arrival job decided and no job answered (run B should have none).
    undecided: messages.filter((m) => !m.kind && !m.hasJob && !m.arrivalRead).length,
    failedJobs: messages.filter((m) => m.jobFailed).length,
    decisions: kind === "B" ? decisions : null,
    timesFromTransactionStarts: fellBack,
  };
}

// ---------------------------------------------------------------------------------------------
// The benchmark

/**
 * Runs A (no automations) and B (`rules` keyword rules, welcome and away) at each rate in `rates`, each
 * `duration` seconds. `databaseUrl`: a PostgreSQL database to use; otherwise a private cluster, or
 * PGlite when PostgreSQL's programs are missing.
 */
export async function benchAutomations({
  root,
  accounts,
  databaseUrl: givenUrl,
  rates,
  duration,
  customers,
  rules: ruleCount,
  drainTimeoutSeconds,
  statusWebhooks = false,
  cap = "fresh",
  control = false,
  instances: askedInstances = 1,
  log = console.log,
}) {
  if (!["fresh", "full"].includes(cap)) throw new Error(`--automations-cap is fresh or full, not ${cap}`);
  const notes = [];
  let cluster = null;
  let databaseUrl = givenUrl;
  let database;
  if (databaseUrl) database = { kind: "postgres", where: "the database of --database-url" };
  else {
    try {
      cluster = await startPrivatePostgres({
        extraSettings: { track_commit_timestamp: "on", shared_preload_libraries: "'pg_stat_statements'", "pg_stat_statements.max": "1000" },
      });
      databaseUrl = cluster.url;
      database = { kind: "postgres", where: "a private cluster (fsync, synchronous_commit and full_page_writes off)" };
      log(`  private PostgreSQL cluster at ${databaseUrl} (track_commit_timestamp on, pg_stat_statements loaded)`);
    } catch (error) {
      const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
      database = { kind: "pglite", where: "the embedded PGlite" };
      notes.push(`PostgreSQL is not available (${reason}): measured on the embedded PGlite. The budget is for PostgreSQL.`);
      log(`  PostgreSQL is not available (${reason}): measuring on the embedded PGlite instead.`);
    }
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "jumbe-bench-automations-"));
  const cleanUp = () => {
    cluster?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.once("exit", cleanUp);
  const onDatabase = (work) => withDatabase({ databaseUrl, dataDir }, work);

  try {
    let commitTimestamps = false;
    if (databaseUrl) {
      const [row] = await onDatabase((query) => query(`select current_setting('track_commit_timestamp') as on`));
      commitTimestamps = row?.on === "on";
      if (!commitTimestamps) notes.push("track_commit_timestamp is off on this database: times are the transactions' starts, not commits.");
      database.settings = await postgresDurability(databaseUrl);
    }
    database.times = commitTimestamps ? "commit timestamps" : "transaction start times";
    // PGlite serves one process.
    const instances = databaseUrl ? Math.max(1, askedInstances) : 1;
    if (instances !== askedInstances) notes.push(`One instance, not ${askedInstances}: the embedded PGlite serves one process.`);

    const rules = buildRules(ruleCount);
    const texts = prepareTexts(root, rules);
    if (texts.check.problem)
      notes.push(`The matcher could not be run in process (${texts.check.problem}): the share of messages matching a rule is not checked.`);
    const byType = {};
    for (const r of rules) byType[r.matchType] = (byType[r.matchType] ?? 0) + 1;

    // One appSecret and one set of secrets for every start: the connected number's token stays readable.
    const appSecret = newAppSecret();
    const extraEnv = {
      RATE_LIMIT_MULTIPLIER: "1000000",
      META_APP_SECRET: appSecret,
      SESSION_SECRET: randomBytes(32).toString("hex"),
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      SANDBOX_CONTROL_TOKEN: randomBytes(24).toString("base64url"),
      // /metrics, for the automations' own time in each message's webhook transaction (arrivalOf).
      METRICS_TOKEN: randomBytes(24).toString("base64url"),
      DATA_DIR: dataDir,
      ...(statusWebhooks ? {} : { META_SANDBOX_STATUS_DELAYS_MS: "600000,600000,600000" }),
      // The replies go outside any window the sandbox knows: refused at once, as when the results
      // below were taken (decision 111 made the sandbox's default accept them and fail them later).
      META_SANDBOX_REENGAGEMENT: "sync",
    };
    const context = {
      target: null,
      tenant: null,
      installed: null,
      commitTimestamps,
      statements: false,
      capFull: cap === "full",
      ownCluster: !!cluster,
      serverLog: null,
    };
    const runs = [];
    let runIndex = 0;
    for (const rate of rates) {
      const total = Math.round(rate * duration);
      const plan = messagePlan({ total, customers, texts, seed: 440 + rate });
      const micros = distribution(plan.map((p) => texts.microsOf(p.text)));
      const matched = texts.check.problem ? null : plan.filter((p) => texts.ruleOf(p.text) !== null).length;
      // --automations-control: a second run without automations, after the first: what A and B
      // would differ by with nothing between them (this machine's noise at this rate).
      for (const [kind, isControl] of control
        ? [
            ["A", false],
            ["A", true],
            ["B", false],
          ]
        : [
            ["A", false],
            ["B", false],
          ]) {
        log(
          `  run ${kind}${isControl ? " (again, the control)" : ""} at ${rate.toLocaleString("en-US")}/s: ${total.toLocaleString("en-US")} messages ${kind === "A" ? "without automations" : `with ${rules.length} keyword rules, welcome and away`} ...`,
        );
        const run = await oneRun({
          root,
          accounts,
          databaseUrl,
          onDatabase,
          extraEnv,
          appSecret,
          context,
          clusterPids: () => (cluster ? cluster.processIds() : []),
          kind,
          rate,
          plan,
          rules,
          run: runIndex++,
          drainTimeoutMs: drainTimeoutSeconds * 1000,
          instances,
          log,
        });
        run.control = isControl;
        run.instances = instances;
        run.matchedShare = matched === null ? null : matched / total;
        run.matchingMicros = micros;
        if (kind === "B")
          run.expected =
            cap === "full"
              ? { rule: 0, cooldown: 0, welcome: 0, away: 0, none: total, replies: 0 }
              : expectedDecisions(plan, rules, texts.ruleOf);
        runs.push(run);
        log(`    ${summaryLine(run)}`);
      }
    }

    const comparisons = rates.map((rate) =>
      compare(
        runs.find((r) => r.rate === rate && r.kind === "A" && !r.control),
        runs.find((r) => r.rate === rate && r.kind === "B"),
      ),
    );
    const noise = control
      ? rates.map((rate) =>
          compare(
            runs.find((r) => r.rate === rate && r.kind === "A" && !r.control),
            runs.find((r) => r.rate === rate && r.control),
          ),
        )
      : [];
    return {
      budget: `issue 44: at most ${BUDGET_P99_MS} ms p99 added to a message at 1,000 inbound messages a second on PostgreSQL (500 keyword rules and 20 live flows)`,
      database,
      rules: {
        count: rules.length,
        byType,
        withCooldown: rules.filter((r) => r.cooldownMinutes > 0).length,
        withTags: rules.filter((r) => r.actions.some((a) => a.type === "tags")).length,
        installed: context.installed,
      },
      texts: { check: texts.check, matchingPool: texts.matching.length, chatterPool: texts.chatter.length },
      duration,
      customers,
      warmUpSeconds: WARM_UP_SECONDS,
      statusWebhooks,
      cap,
      runs,
      comparisons,
      noise,
      notes,
    };
  } finally {
    cleanUp();
    process.removeListener("exit", cleanUp);
  }
}

/** One run on a freshly started server: automations set in SQL, warm-up, the measured load, its figures. */
async function oneRun({
  root,
  accounts,
  databaseUrl,
  onDatabase,
  extraEnv,
  appSecret,
  context,
  clusterPids,
  kind,
  rate,
  plan,
  rules,
  run,
  drainTimeoutMs,
  instances,
  log,
}) {
  const tag = `AUTO${kind}${run}${randomBytes(3).toString("hex")}`.toUpperCase();
  if (context.tenant) {
    await onDatabase(async (query) => {
      if (kind === "B")
        context.installed = await installAutomations(query, context.tenant, rules, {
          capFull: context.capFull,
          phoneNumberId: context.target.phoneNumberId,
        });
      else await removeAutomations(query, context.tenant);
      // Autovacuum would otherwise land in whichever run follows the last one's tens of thousands of rows.
      if (databaseUrl) await query("vacuum analyze");
    });
  } else if (kind === "B") throw new Error("run B needs the tenant, read after run A");

  const loadAverageBefore = os.loadavg();
  // The first instance migrates and seeds; the others start on its database. Every instance's Graph
  // calls go to the first's Meta sandbox, which holds the connected number (each sandbox has its own memory).
  const server = await startServer({ root, databaseUrl, extraEnv });
  const servers = [server];
  try {
    for (let n = 1; n < instances; n++)
      servers.push(
        await startServer({ root, databaseUrl, extraEnv: { ...extraEnv, GRAPH_API_BASE_URL: `${server.baseUrl}/sandbox/meta/graph` } }),
      );
  } catch (error) {
    for (const started of servers) await started.stop();
    throw error;
  }
  const webhookUrls = servers.map((s) => `${s.baseUrl}${WEBHOOK_PATH}`);
  let measured;
  let arrival = null;
  let linesBefore = new Set();
  let serverOutput = "";
  let databaseCounters = null;
  let logOffset = null;
  try {
    const adminCookie = await signIn(server.baseUrl, accounts.admin);
    if (!context.target) {
      const cookie = await signIn(server.baseUrl, accounts.individual);
      context.target = await connectDemoNumber(server.baseUrl, cookie);
      log(
        `    connected WABA ${context.target.wabaId}, number ${context.target.phoneNumberId} (+${context.target.displayPhoneNumber}) to the demo tenant`,
      );
      // The seed has just written every table; done now, as a database in service has it done.
      if (databaseUrl)
        await onDatabase(async (query) => {
          // The demo seeds automations (rules, welcome and away, flows, the assistant): the first run A
          // is the first read of the tenant, so they are taken away here, before its load.
          if (kind === "A") {
            context.tenant ??= await demoTenant(query, accounts.individual.email);
            await removeAutomations(query, context.tenant);
          }
          await query("vacuum analyze");
          // The cluster's log (bench/lib/database.mjs writes it beside the data directory), for its errors.
          if (context.ownCluster) {
            const [row] = await query(`select current_setting('data_directory') as dir`);
            context.serverLog = path.join(path.dirname(row.dir), "server.log");
          }
          // Database time by statement, when the cluster loads pg_stat_statements (this benchmark's own does).
          try {
            await query("create extension if not exists pg_stat_statements");
            await query("select pg_stat_statements_reset()");
            context.statements = true;
          } catch {
            context.statements = false;
          }
        });
    }
    const target = context.target;
    await settle(server.baseUrl, adminCookie, { timeoutMs: drainTimeoutMs });

    // Warm-up: location messages (automations do not read them) from customers of their own.
    const warmCount = Math.round(rate * WARM_UP_SECONDS);
    const warm = Array.from({ length: warmCount }, (_, n) =>
      locationDelivery({ appSecret, target, ...customer(run, 90_000 + (n % 5_000)), wamid: `wamid.${tag}W.${n}` }),
    );
    await sendSteady(webhookUrls, { rate, bodies: warm });

    const bodies = plan.map((p, n) =>
      inboundTextDelivery({ appSecret, target, ...customer(run, p.customer), wamid: `wamid.${tag}.${n}`, text: p.text }),
    );
    linesBefore = new Set(servers.flatMap((s) => s.output().split("\n")));
    if (context.statements) await onDatabase((query) => query("select pg_stat_statements_reset()"));
    if (databaseUrl) databaseCounters = await onDatabase(counters);
    if (context.serverLog) logOffset = fileSize(context.serverLog);
    measured = await measuredLoad({
      baseUrl: server.baseUrl,
      webhookUrls,
      adminCookie,
      bodies,
      rate,
      drainTimeoutMs,
      serverPids: servers.map((s) => s.pid),
      databasePids: clusterPids,
    });
    arrival = await arrivalOf(
      servers.map((s) => s.baseUrl),
      extraEnv.METRICS_TOKEN,
    );
  } finally {
    serverOutput = servers.map((s) => s.output()).join("\n");
    for (const started of servers) await started.stop();
  }
  const loadAverageAfter = os.loadavg();
  // Warnings the server logged meanwhile (its output is a rolling 20 kB tail), less "automation capped" (one a message over the cap).
  const serverLog = serverOutput
    .split("\n")
    .filter((line) => line.trim() && !linesBefore.has(line))
    // Mail goes to a closed port (bench/lib/server.mjs): its jobs' retries are expected.
    .filter(
      (line) => !line.includes("automation capped") && !/"queue":"[^"]*mail/.test(line) && /"level":(40|50|60)|error|warn/i.test(line),
    )
    .map((line) => line.slice(0, 300))
    .slice(-10);

  const figures = await onDatabase(async (query) => {
    // First, before this bench's own statements: what the database spent its time on over the load and drain.
    const statements = context.statements ? await topStatements(query) : null;
    let transactions = null;
    if (databaseCounters) {
      const after = await counters(query);
      transactions = {
        deadlocks: after.deadlocks - databaseCounters.deadlocks,
        rolledBack: after.rolledBack - databaseCounters.rolledBack,
        // A webhook job whose deliveries could not be applied together (process.ts applies them again one at a time).
        savepointRollbacks: statements?.rollbacks ?? null,
        errors: logOffset === null ? null : databaseErrors(context.serverLog, logOffset),
      };
    }
    context.tenant ??= await demoTenant(query, accounts.individual.email);
    const rows = await messageTimes(query, { tag, tenant: context.tenant, commitTimestamps: context.commitTimestamps });
    const [replies] = await query(
      `select count(*) filter (where status in ('sent', 'delivered', 'read') or accepted_at is not null)::int as accepted,
              count(*) filter (where status = 'failed')::int as failed, count(*)::int as queued
       from messages where organization_id = $1 and source = 'automation' and automation_run_id in (
         select r.id from automation_runs r join messages m on m.id = r.message_id where m.organization_id = $1 and m.wamid like $2)`,
      [context.tenant.organizationId, `wamid.${tag}.%`],
    );
    const failures = await query(
      `select coalesce(error_code::text, '-') || ' ' || coalesce(error_title, '') as why, count(*)::int as n
       from messages where organization_id = $1 and source = 'automation' and status = 'failed' and automation_run_id in (
         select r.id from automation_runs r join messages m on m.id = r.message_id where m.organization_id = $1 and m.wamid like $2)
       group by 1 order by 2 desc limit 3`,
      [context.tenant.organizationId, `wamid.${tag}.%`],
    );
    // Why a reply could not be queued (the server's log redacts the refusal's code): the number as
    // queueMessage reads it.
    const [number] = await query(
      `select a.token_refused_at is not null as token_refused, a.token_refusal, p.registered_at is not null as registered, p.disconnected_at is not null as disconnected
       from whatsapp_phone_numbers p join whatsapp_accounts a on a.id = p.account_id where p.phone_number_id = $1`,
      [context.target.phoneNumberId],
    );
    return { ...figuresOf(rows, { kind, total: plan.length }), repliesSent: { ...replies, failures }, number, statements, transactions };
  });
  return {
    kind,
    rate,
    tag,
    messages: plan.length,
    sent: measured.sending.sent,
    acknowledged: measured.sending.ok,
    statuses: measured.sending.statuses,
    sendSeconds: measured.sending.sendSeconds,
    sentPerSecond: measured.sending.sent / measured.sending.sendSeconds,
    behindMaxMs: measured.sending.behindMaxMs,
    acknowledgementMs: measured.sending.acknowledged,
    arrival,
    ...figures,
    drain: {
      drained: measured.drained,
      afterLoadSeconds: measured.drainAfterLoadSeconds,
      atSeconds: measured.drainedAtSeconds,
      loadSeconds: measured.loadSeconds,
      timeoutSeconds: measured.drainTimeoutSeconds,
      peakBacklog: measured.peakBacklog,
      peakWebhookBacklog: measured.peakWebhookBacklog,
      peakAutomationJobs: measured.peakAutomationJobs,
      pollErrors: measured.pollErrors,
    },
    cpuCores: measured.cpuCores,
    serverLog,
    loadAverage: { before: loadAverageBefore, after: loadAverageAfter },
  };
}

/**
 * The automations' own time in each message's webhook transaction (their arrival read and jobs,
 * the server's jumbe_automations_arrival_seconds histogram: one observation a text message, its
 * batch's time), read from /metrics before the server stops. Its quantiles are bucket bounds:
 * "p99 <= 2 ms" says 99% of the messages waited at most 2 ms on automations. Run A pays the read's
 * check that the organisation has none.
 */
async function arrivalOf(baseUrls, token) {
  try {
    const texts = [];
    for (const baseUrl of baseUrls) {
      const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      if (!response.ok) return { problem: `/metrics answered ${response.status}` };
      texts.push(await response.text());
    }
    return histogramFigures(texts, "jumbe_automations_arrival_seconds");
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * A Prometheus histogram's count, mean and quantiles (upper bucket bounds, in ms) from the text
 * format: one instance's, or several instances' added together.
 */
export function histogramFigures(texts, name) {
  const counts = new Map();
  let sum = 0;
  let count = 0;
  for (const text of Array.isArray(texts) ? texts : [texts])
    for (const line of text.split("\n")) {
      const bucket = line.match(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)`));
      if (bucket) {
        const le = bucket[1] === "+Inf" ? Infinity : Number(bucket[1]) * 1000;
        counts.set(le, (counts.get(le) ?? 0) + Number(bucket[2]));
      } else if (line.startsWith(`${name}_sum `)) sum += Number(line.slice(name.length + 5)) * 1000;
      else if (line.startsWith(`${name}_count `)) count += Number(line.slice(name.length + 7));
    }
  if (!count) return { count: 0 };
  const buckets = [...counts].map(([le, n]) => ({ le, n })).sort((a, b) => a.le - b.le);
  const upTo = (q) => buckets.find((b) => b.n >= q * count)?.le ?? null;
  return { count, meanMs: sum / count, p50: upTo(0.5), p90: upTo(0.9), p99: upTo(0.99), max: upTo(1) };
}

/** Whether a run kept up with its rate: sent at it, and its backlog gone within a second of the load. */
const keptUp = (run) => run.sentPerSecond >= run.rate * 0.95 && run.drain.drained && run.drain.afterLoadSeconds <= 1;

function compare(a, b) {
  if (!a || !b) return null;
  const delta = (x, y) => (typeof x === "number" && typeof y === "number" ? y - x : null);
  const added = { p50: delta(a.processed.p50, b.processed.p50), p99: delta(a.processed.p99, b.processed.p99) };
  const bothKeptUp = keptUp(a) && keptUp(b);
  return {
    rate: a.rate,
    stored: {
      a: { p50: a.stored.p50, p99: a.stored.p99 },
      b: { p50: b.stored.p50, p99: b.stored.p99 },
      p50: delta(a.stored.p50, b.stored.p50),
      p99: delta(a.stored.p99, b.stored.p99),
    },
    processed: { a: { p50: a.processed.p50, p99: a.processed.p99 }, b: { p50: b.processed.p50, p99: b.processed.p99 }, ...added },
    keptUp: { a: keptUp(a), b: keptUp(b) },
    withinBudget: bothKeptUp && added.p99 !== null ? added.p99 <= BUDGET_P99_MS : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Report

const fixed = (value, digits = 1) => (typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "-");
const int = (value) => (typeof value === "number" && Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-");
const signed = (value, digits = 1) =>
  typeof value === "number" && Number.isFinite(value) ? `${value >= 0 ? "+" : ""}${value.toFixed(digits)}` : "-";
const ms = (d, digits = 1) => `${fixed(d?.p50, digits)} / ${fixed(d?.p99, digits)}`;

function summaryLine(run) {
  return (
    `sent ${int(run.sentPerSecond)}/s, ${run.acknowledged}/${run.sent} acknowledged; stored p50/p99 ${ms(run.stored)} ms` +
    (run.kind === "B" ? `; automation done p50/p99 ${ms(run.processed)} ms` : "") +
    `; ${run.drain.drained ? `drained ${fixed(run.drain.afterLoadSeconds)} s after the load` : `NOT drained ${run.drain.timeoutSeconds} s after the load`}` +
    `; load average ${fixed(run.loadAverage.before[0], 2)} -> ${fixed(run.loadAverage.after[0], 2)}`
  );
}

export function formatAutomations(report, { table }) {
  const lines = [];
  lines.push("\nAutomations on inbound messages (issue 44): the same load without and with keyword rules, welcome and away");
  if (report.problem) {
    lines.push(`  not measured: ${report.problem}`);
    return lines.join("\n");
  }
  const db = report.database;
  const settings = db.settings ? `; fsync=${db.settings.fsync}, synchronous_commit=${db.settings.synchronous_commit}` : "";
  lines.push(`  Budget: ${report.budget}.`);
  lines.push(
    `  Database: ${db.kind === "postgres" ? "PostgreSQL" : "PGlite"}, ${db.where}${settings}; per-message times from ${db.times}.`,
  );
  const types = Object.entries(report.rules.byType)
    .map(([type, n]) => `${type} ${n}`)
    .join(", ");
  const check = report.texts.check;
  lines.push(
    `  Run B: ${report.rules.count} keyword rules (${types}; ${report.rules.withCooldown} with a 60-minute cooldown, ${report.rules.withTags} adding a tag), the welcome and the away message on, outside business hours (holidays ${report.rules.installed?.holidays?.join(", ") ?? "-"}); ${report.rules.installed?.flows ?? 0} live chatbot flows, none started by the run's messages.`,
  );
  if (check.problem) lines.push(`  The product's matcher could not be run on the texts beforehand: ${check.problem}`);
  else
    lines.push(
      `  Texts checked with the product's matcher beforehand: ${report.texts.matchingPool} written to match a rule (${check.writtenButMatchingNone} of ${check.writtenToMatch} written matched none and were left out), ${report.texts.chatterPool} that match none${check.chatterMatchingARule.length ? ` (left out, as they matched one: ${check.chatterMatchingARule.join(" | ")})` : ""}; ${check.skippedKeywords.length} keywords skipped by the matcher.`,
    );
  lines.push(
    `  The number's hourly cap of ${NUMBER_HOURLY_CAP.toLocaleString("en-US")} automated replies: ${report.cap === "full" ? `already reached when run B starts (--automations-cap full, ${report.rules.installed?.repliesThisHour ?? "-"} replies in the hour): every message is decided, then capped, as at 1,000 messages a second after the hour's first second` : `fresh when run B starts (${report.rules.installed?.repliesThisHour ?? "-"} replies in the hour): its first replies are queued, then the cap is reached`}.`,
  );
  lines.push(
    `  Each run: a fresh server on the same database, a ${report.warmUpSeconds} s warm-up of location messages, then the measured messages (open loop) from ${int(report.customers)} customers new to the tenant, for ${report.duration} s. The sandbox's status webhooks for the replies are ${report.statusWebhooks ? "sent at its usual delays" : "held past the run"}.`,
  );
  lines.push(
    "  delivered = webhook_events.received_at; stored = the message's transaction committed; automation done = its automation_runs row committed (with the reply), or its job's completion (its batch's end) when nothing answered it, or its arrival job's commit when it got no job (the arrival job, one a webhook batch, decided that nothing answers it). Processed = stored (A), automation done (B).",
  );
  lines.push(
    table(
      [
        "run",
        "rate/s",
        "sent/s",
        "acked",
        "ack p50/p99 ms",
        "stored p50/p99 ms",
        "processed p50/p99 ms",
        "p90 ms",
        "max ms",
        "processed/s",
        "drained after load s",
        "peak backlog",
        "cores srv/db/gen/other",
        "load avg before/after",
      ],
      report.runs.map((r) => [
        r.kind === "A" ? (r.control ? "A none (control)" : "A none") : "B automations",
        int(r.rate),
        int(r.sentPerSecond),
        `${r.acknowledged}/${r.sent}`,
        ms(r.acknowledgementMs, 0),
        ms(r.stored),
        ms(r.processed),
        fixed(r.processed.p90),
        fixed(r.processed.max, 0),
        int(r.processedPerSecond),
        r.drain.drained ? fixed(r.drain.afterLoadSeconds) : `no (${r.drain.timeoutSeconds} s)`,
        int(r.drain.peakBacklog),
        [r.cpuCores.server, r.cpuCores.database, r.cpuCores.loadGenerator, r.cpuCores.other].map((c) => fixed(c, 2)).join("/"),
        `${fixed(r.loadAverage.before[0], 2)}/${fixed(r.loadAverage.after[0], 2)}`,
      ]),
    ),
  );
  const withAutomations = report.runs.filter((r) => r.kind === "B");
  if (withAutomations.length) {
    lines.push("\nRun B: what automations did (from automation_runs) and the automation's own step");
    lines.push(
      table(
        [
          "rate/s",
          "match a rule",
          "matching µs p50/p99",
          "stored->done p50/p99 ms",
          "reply queued p50/p99 ms",
          "rule",
          "welcome",
          "away",
          "no reply (job)",
          "no job (arrival job decided)",
          "replies",
          "expected uncapped",
          "peak automation jobs",
          "failed jobs",
        ],
        withAutomations.map((r) => [
          int(r.rate),
          r.matchedShare === null ? "-" : `${fixed(r.matchedShare * 100)}%`,
          ms(r.matchingMicros, 0),
          ms(r.automationStep),
          ms(r.replyQueued),
          r.decisions.rule,
          r.decisions.welcome,
          r.decisions.away,
          r.decisions.noRun,
          r.decisions.noJob ?? 0,
          r.decisions.replies,
          `${r.expected.replies} (rule ${r.expected.rule}, welcome ${r.expected.welcome}, away ${r.expected.away})`,
          int(r.drain.peakAutomationJobs),
          r.failedJobs,
        ]),
      ),
    );
    if (withAutomations.some((r) => r.expected.replies > NUMBER_HOURLY_CAP))
      lines.push(
        `  Replies stop at ${NUMBER_HOURLY_CAP.toLocaleString("en-US")} an hour for one business number (run.ts NUMBER_HOURLY_CAP): past it its webhook batch's arrival job finds the hour's replies made and queues it no job, so most of run B's messages take that path.`,
      );
  }
  lines.push("\nWhat automations add (B - A, ms)");
  lines.push(
    table(
      ["rate/s", "stored p50", "stored p99", "processed p50", "processed p99", "A kept up", "B kept up", `budget +${BUDGET_P99_MS} ms p99`],
      report.comparisons
        .filter(Boolean)
        .map((c) => [
          int(c.rate),
          `${fixed(c.stored.a.p50)} -> ${fixed(c.stored.b.p50)} (${signed(c.stored.p50)})`,
          `${fixed(c.stored.a.p99)} -> ${fixed(c.stored.b.p99)} (${signed(c.stored.p99)})`,
          `${fixed(c.processed.a.p50)} -> ${fixed(c.processed.b.p50)} (${signed(c.processed.p50)})`,
          `${fixed(c.processed.a.p99)} -> ${fixed(c.processed.b.p99)} (${signed(c.processed.p99)})`,
          c.keptUp.a ? "yes" : "no",
          c.keptUp.b ? "yes" : "no",
          c.withinBudget === null ? "not judged (a run did not keep up)" : c.withinBudget ? "within" : "OVER",
        ]),
    ),
  );
  if (report.noise?.some(Boolean)) {
    lines.push("\nThe control: run A again, nothing changed (A again - A, ms): this machine's noise at each rate");
    lines.push(
      table(
        ["rate/s", "stored p50", "stored p99", "A kept up", "A again kept up"],
        report.noise
          .filter(Boolean)
          .map((c) => [
            int(c.rate),
            `${fixed(c.stored.a.p50)} -> ${fixed(c.stored.b.p50)} (${signed(c.stored.p50)})`,
            `${fixed(c.stored.a.p99)} -> ${fixed(c.stored.b.p99)} (${signed(c.stored.p99)})`,
            c.keptUp.a ? "yes" : "no",
            c.keptUp.b ? "yes" : "no",
          ]),
      ),
    );
  }
  if (report.runs.some((r) => r.arrival)) {
    lines.push(
      "\nAutomations' own time in each message's webhook transaction (queueing its batch's arrival job; in A the statement that finds the organisation has none; the server's jumbe_automations_arrival_seconds, one observation a text message; quantiles are the histogram's bucket bounds, ms)",
    );
    lines.push(
      table(
        ["run", "rate/s", "messages", "mean", "p50 <=", "p90 <=", "p99 <=", "B - A mean / p99", `budget +${BUDGET_P99_MS} ms p99`],
        report.runs.map((r) => {
          const a = report.runs.find((x) => x.rate === r.rate && x.kind === "A" && !x.control)?.arrival;
          const added =
            r.kind === "B" && a?.count && r.arrival?.count ? { mean: r.arrival.meanMs - a.meanMs, p99: r.arrival.p99 - a.p99 } : null;
          return [
            r.kind === "A" ? (r.control ? "A none (control)" : "A none") : "B automations",
            int(r.rate),
            r.arrival?.problem ?? int(r.arrival?.count),
            fixed(r.arrival?.meanMs, 3),
            fixed(r.arrival?.p50, 2),
            fixed(r.arrival?.p90, 2),
            fixed(r.arrival?.p99, 2),
            added ? `${signed(added.mean, 3)} / ${signed(added.p99, 2)}` : "",
            added ? (added.p99 <= BUDGET_P99_MS ? "within" : "OVER") : "",
          ];
        }),
      ),
    );
  }
  lines.push(
    "  Kept up: sent at 95% of the rate or more, and the webhooks and jobs all done within 1 s of the load's end. A run that did not keep up measures its backlog (queueing), not the work of a message.",
  );
  for (const r of report.runs) {
    const problems = [];
    if (r.missing) problems.push(`${r.missing} messages not stored`);
    if (r.unprocessed) problems.push(`${r.unprocessed} messages not processed by the end`);
    if (r.kind === "A" && r.automationJobs) problems.push(`${r.automationJobs} automation jobs in a run without automations`);
    if (r.kind === "B" && r.undecided) problems.push(`${r.undecided} messages no arrival job decided`);
    if (r.failedJobs) problems.push(`${r.failedJobs} failed automation jobs`);
    if (r.acknowledged !== r.sent) problems.push(`answers ${JSON.stringify(r.statuses)}`);
    if (r.timesFromTransactionStarts && report.database.times === "commit timestamps")
      problems.push(`${r.timesFromTransactionStarts} times without a commit timestamp (transaction starts used)`);
    if (r.kind === "B" && r.repliesSent)
      problems.push(
        `replies sent through the sandbox by the end: ${r.repliesSent.accepted} accepted, ${r.repliesSent.failed} failed of ${r.repliesSent.queued}${r.repliesSent.failures?.length ? ` (${r.repliesSent.failures.map((f) => `${f.why.trim()}: ${f.n}`).join(", ")})` : ""}`,
      );
    const t = r.transactions;
    if (t && (t.deadlocks || t.rolledBack || t.savepointRollbacks || t.errors?.counts.length))
      problems.push(
        `over the load and drain the database had ${t.deadlocks} deadlocks, ${t.rolledBack} rolled-back transactions, ${t.savepointRollbacks ?? "-"} webhook batches rolled back to their savepoint (then applied one delivery at a time)` +
          (t.errors?.counts.length ? `; its log's errors: ${t.errors.counts.map((e) => `${e.message} (${e.n})`).join(", ")}` : "") +
          (t.errors?.firstDeadlock ? `; the first deadlock:\n      ${t.errors.firstDeadlock.join("\n      ")}\n   ` : ""),
      );
    if (r.kind === "B" && r.number && (r.number.token_refused || !r.number.registered || r.number.disconnected))
      problems.push(
        `the number could not send at the end (${r.number.token_refused ? `token refused: ${r.number.token_refusal}` : r.number.disconnected ? "disconnected" : "not registered"}): replies after that were refused`,
      );
    if (problems.length) lines.push(`  Run ${r.kind} at ${int(r.rate)}/s: ${problems.join("; ")}.`);
    if (r.statements?.top.length) {
      lines.push(
        `  Database time by statement in run ${r.kind} at ${int(r.rate)}/s (pg_stat_statements over the load and drain: ${int(r.statements.totalMs)} ms in all):`,
      );
      for (const st of r.statements.top.slice(0, 12))
        lines.push(
          `    ${int(st.ms).padStart(7)} ms ${int(st.calls).padStart(7)} calls ${fixed(st.ms / st.calls, 3).padStart(7)} ms each  ${st.query}`,
        );
    }
    if (r.serverLog.length)
      lines.push(`  Server warnings in run ${r.kind} at ${int(r.rate)}/s (last ${r.serverLog.length}):\n    ${r.serverLog.join("\n    ")}`);
  }
  for (const note of report.notes) lines.push(`  Note: ${note}`);
  return lines.join("\n");
}
