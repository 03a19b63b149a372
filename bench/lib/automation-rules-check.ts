// For bench/automations.mjs: the bench's keyword rules and message texts through the product's own
// matcher (app/.server/domains/automations/match.ts), in process, before any load: which texts match
// a rule (and which one), which keywords the matcher skips, and how long one message takes to find
// its rule among them all. Run as `node --import tsx bench/lib/automation-rules-check.ts`, with
// { rules: [{ matchType, keywords, threshold }], texts: [string] } as JSON on stdin; prints JSON.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { compileRule, firstMatchingRule, type MatchType } from "../../app/.server/domains/automations/match";

interface Input {
  rules: { matchType: MatchType; keywords: string[]; threshold: number | null }[];
  texts: string[];
  rounds?: number;
}

const input = JSON.parse(readFileSync(0, "utf8")) as Input;
const compiled = input.rules.map((r) => compileRule({ matchType: r.matchType, keywords: r.keywords, threshold: r.threshold ?? undefined }));
const skipped = compiled.flatMap((rule, index) => rule.skipped.map((keyword) => ({ rule: index, keyword })));
const matches = input.texts.map((text) => {
  const found = firstMatchingRule(compiled, text);
  return found ? { rule: found.index, matchType: found.rule.matchType } : null;
});

// Microseconds a text takes to find its rule (or to try all of them), the mean of `rounds` tries after
// a warm-up, for each text.
const rounds = input.rounds ?? 50;
for (const text of input.texts) firstMatchingRule(compiled, text);
const micros = input.texts.map((text) => {
  const started = performance.now();
  for (let i = 0; i < rounds; i++) firstMatchingRule(compiled, text);
  return ((performance.now() - started) * 1000) / rounds;
});

process.stdout.write(JSON.stringify({ skipped, matches, micros }));
