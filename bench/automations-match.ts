// Keyword rules in process (app/.server/domains/automations/match.ts): how long one inbound message
// takes to find its rule among a tenant's 500 (issue 44's goal: well under 1 ms on average), beside a
// bare baseline of normalising the same messages only, in the same run. No database, no server.
//
//   node --import tsx bench/automations-match.ts [--rounds 5] [--messages 2000] [--json]
//
// - 500 rules of mixed types (contains 30%, exact 20%, fuzzy 25%, starts_with 15%, regex 10%), each
//   with 1 to 5 keywords of 1 to 3 words drawn from Swahili, Sheng, English and French words. Rules
//   and messages come from a seeded generator: every run tries the same ones.
// - Messages of 1 to 25 words from the same words and from made-up ones, with capitals, accents, typos,
//   punctuation and emoji; 2% are 1,000-character messages. Most match some rule; those that match
//   none have tried all 500, the worst case, and are also reported on their own.
// - Each round times every message once through `firstMatchingRule` and once through
//   `normaliseMessage` alone, alternately, after a warm-up round. Per-message p50, p99, max and mean
//   in microseconds; then the same for 500 rules of one type, and the rules' compile time.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import {
  compileRule,
  firstMatchingRule,
  normaliseMessage,
  type CompiledRule,
  type MatchType,
} from "../app/.server/domains/automations/match";

const { values: options } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    messages: { type: "string", default: "2000" },
    json: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(options.rounds);
const MESSAGES = Number(options.messages);
const RULES = 500;

let seed = 44;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));

// prettier-ignore
const WORDS = [
  "habari", "bei", "gani", "ngapi", "nataka", "kuongea", "na", "mtu", "asante", "tafadhali", "salio", "akaunti", "mkopo", "lipa",
  "malipo", "agizo", "bidhaa", "usafirishaji", "saa", "wapi", "duka", "huduma", "msaada", "tatizo", "namba", "simu", "pesa", "tuma",
  "pokea", "niaje", "mambo", "poa", "sasa", "vipi", "msee", "mbao", "fare", "buda", "manze", "rada", "balance", "price", "order",
  "delivery", "refund", "help", "agent", "hours", "open", "location", "payment", "invoice", "account", "statement", "loan", "card",
  "password", "reset", "cancel", "stop", "start", "hello", "thanks", "bonjour", "prix", "commande", "livraison", "aide", "merci",
  "compte", "solde", "mpesa", "paybill", "till", "unga", "sukari", "mafuta", "stima", "token", "airtime", "bundles", "fuliza",
];
const EMOJI = ["👋", "🙏", "😊", "👍🏽", "❤️", "🔥"];
const PUNCTUATION = ["?", "!", ".", ",", "...", "!!"];

const phrase = () => Array.from({ length: pick([1, 1, 1, 2, 2, 3]) }, () => pick(WORDS)).join(" ");

function regexKeyword(): string {
  const word = pick(WORDS);
  return pick([
    `\\b${word}\\b`,
    `^${word}\\b`,
    `${word} ?#?\\d{4,8}`,
    `^(${word}|${pick(WORDS)}|${pick(WORDS)})$`,
    `\\b${word}\\s(\\d+)kg`,
    `ref[: ]?[a-z0-9]{6,10}`,
    `07\\d{8}`,
  ]);
}

const TYPE_SHARES: [MatchType, number][] = [
  ["contains", 30],
  ["exact", 20],
  ["fuzzy", 25],
  ["starts_with", 15],
  ["regex", 10],
];

function generateRule(matchType: MatchType) {
  const keywords = Array.from({ length: between(1, 5) }, () => (matchType === "regex" ? regexKeyword() : phrase()));
  return { matchType, keywords, threshold: matchType === "fuzzy" ? pick([0.75, 0.8, 0.85]) : undefined };
}

function mixedRules() {
  return TYPE_SHARES.flatMap(([matchType, share]) => Array.from({ length: (RULES * share) / 100 }, () => generateRule(matchType))).sort(
    () => random() - 0.5,
  );
}

function typo(word: string): string {
  if (word.length < 4) return word;
  const at = between(1, word.length - 2);
  return pick([
    () => word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2),
    () => word.slice(0, at) + word.slice(at + 1),
    () => word.slice(0, at) + pick([..."aeiouks"]) + word.slice(at),
  ])();
}

function madeUpWord(): string {
  return Array.from({ length: between(2, 9) }, () => pick([..."abcdefghijklmnoprstuvwyz"])).join("");
}

function generateMessage(): string {
  if (random() < 0.02)
    return Array.from({ length: 200 }, () => pick([pick(WORDS), madeUpWord()]))
      .join(" ")
      .slice(0, 1000);
  const words = Array.from({ length: between(1, 25) }, () => {
    let word = random() < 0.12 ? pick(WORDS) : madeUpWord();
    if (random() < 0.15) word = typo(word);
    if (random() < 0.1) word = word.replace("a", "á");
    if (random() < 0.1) word = word.toUpperCase();
    if (random() < 0.1) word += pick(PUNCTUATION);
    if (random() < 0.05) word += ` ${pick(EMOJI)}`;
    return word;
  });
  return words.join(" ");
}

interface Timing {
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

function summarise(microseconds: number[]): Timing {
  const sorted = [...microseconds].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return {
    p50: round(at(0.5)),
    p99: round(at(0.99)),
    max: round(sorted[sorted.length - 1]!),
    mean: round(sorted.reduce((sum, n) => sum + n, 0) / sorted.length),
  };
}

/** Every message through `firstMatchingRule` and through normalising alone, alternately, per round. */
function measure(rules: readonly CompiledRule[], messages: readonly string[]) {
  const full: number[] = [];
  const unmatched: number[] = [];
  const bare: number[] = [];
  let matched = 0;
  let sink = 0;
  for (let r = 0; r <= ROUNDS; r++) {
    const warmUp = r === 0;
    for (const message of messages) {
      let started = performance.now();
      sink += normaliseMessage(message).words.length;
      const bareTime = (performance.now() - started) * 1000;
      started = performance.now();
      const match = firstMatchingRule(rules, message);
      const fullTime = (performance.now() - started) * 1000;
      if (warmUp) continue;
      bare.push(bareTime);
      full.push(fullTime);
      if (!match) unmatched.push(fullTime);
      if (match && r === 1) matched++;
    }
  }
  if (sink < 0) console.log(sink);
  return {
    rules: summarise(full),
    unmatched: summarise(unmatched),
    normaliseOnly: summarise(bare),
    matchedShare: round(matched / messages.length, 3),
  };
}

const messages = Array.from({ length: MESSAGES }, generateMessage);
const definitions = mixedRules();
const compileStarted = performance.now();
const mixed = definitions.map(compileRule);
const compileMs = round(performance.now() - compileStarted);
const skipped = mixed.reduce((sum, rule) => sum + rule.skipped.length, 0);

const result = {
  node: process.version,
  rules: RULES,
  keywords: definitions.reduce((sum, rule) => sum + rule.keywords.length, 0),
  messages: MESSAGES,
  rounds: ROUNDS,
  compileMs,
  skippedKeywords: skipped,
  mixed: measure(mixed, messages),
  byType: Object.fromEntries(
    TYPE_SHARES.map(([matchType]) => {
      const rules = Array.from({ length: RULES }, () => compileRule(generateRule(matchType)));
      const { rules: timing, unmatched, matchedShare } = measure(rules, messages);
      return [matchType, { ...timing, unmatched, matchedShare }];
    }),
  ),
};

if (options.json) console.log(JSON.stringify(result));
else {
  const row = (name: string, t: Timing, extra = "") =>
    `${name.padEnd(28)} ${String(t.p50).padStart(8)} ${String(t.p99).padStart(8)} ${String(t.max).padStart(9)} ${String(t.mean).padStart(8)}  ${extra}`;
  console.log(
    `Keyword rules: ${result.rules} rules, ${result.keywords} keywords, ${MESSAGES} messages x ${ROUNDS} rounds, Node ${process.version}; compiled in ${compileMs} ms`,
  );
  console.log(`${"per message (µs)".padEnd(28)} ${"p50".padStart(8)} ${"p99".padStart(8)} ${"max".padStart(9)} ${"mean".padStart(8)}`);
  console.log(row("normalising only (baseline)", result.mixed.normaliseOnly));
  console.log(row("500 mixed rules", result.mixed.rules, `${Math.round(result.mixed.matchedShare * 100)}% matched a rule`));
  console.log(row("  those matching none", result.mixed.unmatched, "(all 500 rules tried)"));
  for (const [matchType, timing] of Object.entries(result.byType)) {
    console.log(row(`500 ${matchType} rules`, timing, `${Math.round(timing.matchedShare * 100)}% matched`));
    console.log(row("  those matching none", timing.unmatched));
  }
}
