/**
 * Keyword rules: does a customer's WhatsApp message match a tenant's automation rule?
 *
 * Pure and synchronous: no database, no clock. A rule is compiled once (its keywords normalised and
 * split into words, its patterns built) and then tried against each inbound message, which is
 * normalised once for all rules (`firstMatchingRule`). The work a message costs is bounded: only its
 * first MAX_MATCHED_CHARS characters are read, and regular expressions are refused at save time when
 * their shape could backtrack for long (regex-safety.ts).
 *
 * Customers write Swahili, Sheng, English and French, on phone keyboards: accents come and go
 * ("Habári"), apostrophes are curly or straight, punctuation and emoji are sprinkled in ("bei?",
 * "hi 👋"). Every match type except regex compares words, so none of that matters to them.
 */
import { boundedDistance, fewestEdits, letterMask } from "./distance";
import { checkRegex, REGEX_FLAGS, regexSource } from "./regex-safety";

export { checkRegex, MAX_REGEX_LENGTH, type RegexCheck } from "./regex-safety";

export const MATCH_TYPES = ["exact", "contains", "starts_with", "fuzzy", "regex"] as const;
export type MatchType = (typeof MATCH_TYPES)[number];

export const MAX_KEYWORDS = 50;
export const MAX_KEYWORD_LENGTH = 100;
/** Only this much of a message is read: a WhatsApp text may be 4,096 characters, a keyword is at most 100. */
export const MAX_MATCHED_CHARS = 1000;
export const MIN_FUZZY_THRESHOLD = 0.5;
export const MAX_FUZZY_THRESHOLD = 1;
export const DEFAULT_FUZZY_THRESHOLD = 0.8;
/** Keyword words this short are compared exactly in fuzzy rules: one typo in "bei" is a different word. */
export const FUZZY_EXACT_MAX_LENGTH = 3;

export const isMatchType = (value: unknown): value is MatchType => (MATCH_TYPES as readonly unknown[]).includes(value);

// ---------------------------------------------------------------------------------------------
// Normalising

const APOSTROPHES = /[\u2018\u2019\u201b\u02bc\u2032\uff07`\u00b4]/g;
const QUOTES = /[\u201c\u201d\u201e\u201f\u00ab\u00bb\u2033\uff02]/g;
// Letters that no decomposition takes apart, spelt as people type them without the key.
const LETTERS: Record<string, string> = { œ: "oe", æ: "ae", ß: "ss", ø: "o", đ: "d", ł: "l", ı: "i", ð: "d", þ: "th" };
const UNDECOMPOSED = /[œæßøđłıðþ]/g;

/**
 * A message or keyword as rules compare it: curly quotes made straight, compatibility forms unfolded
 * (ﬁ → fi, full-width letters, ① → 1), accents and other combining marks removed, lower case (one
 * mapping for every language: `toLowerCase`, never the server's locale), invisible format characters
 * (zero-width spaces, direction marks) removed, control characters and runs of white space made one
 * space, trimmed. Punctuation, digits and emoji stay; the word-based match types split them off
 * (`wordsOf`). Applying it twice changes nothing.
 */
export function normaliseText(text: string): string {
  return text
    .replace(APOSTROPHES, "'")
    .replace(QUOTES, '"')
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(UNDECOMPOSED, (letter) => LETTERS[letter]!)
    .replace(/\p{Cf}/gu, "")
    .replace(/[\p{Cc}\s]+/gu, " ")
    .trim();
}

const WORD = /[\p{L}\p{N}]+/gu;

/** The words of a normalised text: runs of letters and digits; punctuation, symbols and emoji separate them. */
export function wordsOf(normalised: string): string[] {
  return normalised.match(WORD) ?? [];
}

/** A message prepared once for every rule: its normalised text and its words. */
export interface NormalisedMessage {
  /** Normalised, at most MAX_MATCHED_CHARS long: what regular expressions see. */
  readonly text: string;
  readonly words: readonly string[];
  readonly wordSet: ReadonlySet<string>;
  /** Each word's `letterMask`, for fuzzy rules to pass over words too different to compare. */
  readonly masks: readonly number[];
  /** The words joined by single spaces, with a space before and after, for whole-word search. */
  readonly padded: string;
  /** True when the message was longer than MAX_MATCHED_CHARS: an exact rule never matches it. */
  readonly truncated: boolean;
}

export function normaliseMessage(message: string): NormalisedMessage {
  // Cut before normalising (the work it costs) and after (a decomposition can lengthen the text).
  const normalised = normaliseText(message.slice(0, MAX_MATCHED_CHARS));
  const text = normalised.slice(0, MAX_MATCHED_CHARS);
  const words = wordsOf(text);
  return {
    text,
    words,
    wordSet: new Set(words),
    masks: words.map(letterMask),
    padded: ` ${words.join(" ")} `,
    truncated: message.length > MAX_MATCHED_CHARS || normalised.length > text.length,
  };
}

// ---------------------------------------------------------------------------------------------
// Compiling and matching

export type RuleMatch = { matched: false; keyword?: undefined; score?: undefined } | { matched: true; keyword: string; score: number };

export interface RuleDefinition {
  matchType: MatchType;
  keywords: readonly string[];
  /** Fuzzy rules only: the similarity each keyword word needs, MIN_FUZZY_THRESHOLD to 1 (default 0.8). */
  threshold?: number;
}

export interface CompiledRule {
  readonly matchType: MatchType;
  readonly threshold: number;
  /** Keywords that can never match and were left out: no letters or digits, or a pattern now refused. */
  readonly skipped: readonly string[];
  readonly test: (message: NormalisedMessage) => RuleMatch;
}

const NO_MATCH: RuleMatch = Object.freeze({ matched: false });

/** A keyword's words, and the same joined with spaces and padded like a message's. */
interface KeywordWords {
  keyword: string;
  words: string[];
  padded: string;
}

function keywordWords(keywords: readonly string[]): { usable: KeywordWords[]; skipped: string[] } {
  const usable: KeywordWords[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  for (const keyword of keywords) {
    const words = wordsOf(normaliseText(keyword));
    const padded = ` ${words.join(" ")} `;
    if (words.length === 0) skipped.push(keyword);
    else if (!seen.has(padded)) {
      seen.add(padded);
      usable.push({ keyword, words, padded });
    }
  }
  return { usable, skipped };
}

const clampThreshold = (threshold: number | undefined) =>
  threshold === undefined || Number.isNaN(threshold)
    ? DEFAULT_FUZZY_THRESHOLD
    : Math.min(MAX_FUZZY_THRESHOLD, Math.max(MIN_FUZZY_THRESHOLD, threshold));

/**
 * A rule ready to be tried on many messages. Keywords are normalised here, not per message. Nothing
 * is thrown for a keyword that cannot match (validation at save time is `checkKeywords`): a rule saved
 * before a check was tightened must not stop the other rules from running, so its keyword is skipped
 * and listed in `skipped`. A threshold outside 0.5–1 is brought within it.
 */
export function compileRule({ matchType, keywords, threshold }: RuleDefinition): CompiledRule {
  const fuzzyThreshold = clampThreshold(threshold);
  if (matchType === "regex") return { matchType, threshold: 1, ...regexTest(keywords) };
  const { usable, skipped } = keywordWords(keywords);
  const test =
    matchType === "exact"
      ? exactTest(usable)
      : matchType === "contains"
        ? containsTest(usable)
        : matchType === "starts_with"
          ? startsWithTest(usable)
          : fuzzyTest(usable, fuzzyThreshold);
  return { matchType, threshold: matchType === "fuzzy" ? fuzzyThreshold : 1, skipped, test };
}

/** The whole message is the keyword's words: punctuation and emoji anywhere are ignored ("Hi!", "hi 👋"). */
function exactTest(keywords: KeywordWords[]): CompiledRule["test"] {
  const byWords = new Map(keywords.map(({ padded, keyword }) => [padded, keyword] as const));
  return (message) => {
    if (message.truncated) return NO_MATCH;
    const keyword = byWords.get(message.padded);
    return keyword === undefined ? NO_MATCH : { matched: true, keyword, score: 1 };
  };
}

/** The keyword's words appear together, as whole words, anywhere: "bei" in "bei gani?", not in "beiya". */
function containsTest(keywords: KeywordWords[]): CompiledRule["test"] {
  // Most messages lack the keyword's longest (likely rarest) word: a set lookup spares the text search.
  const probed = keywords.map(({ keyword, words, padded }) => ({
    keyword,
    padded,
    probe: words.reduce((a, b) => (b.length > a.length ? b : a)),
  }));
  return (message) => {
    for (const { padded, keyword, probe } of probed)
      if (message.wordSet.has(probe) && message.padded.includes(padded)) return { matched: true, keyword, score: 1 };
    return NO_MATCH;
  };
}

/** The message's first words are the keyword's words. */
function startsWithTest(keywords: KeywordWords[]): CompiledRule["test"] {
  return (message) => {
    for (const { padded, keyword, words } of keywords)
      if (message.words[0] === words[0] && message.padded.startsWith(padded)) return { matched: true, keyword, score: 1 };
    return NO_MATCH;
  };
}

/**
 * Typo-tolerant: the keyword's words are compared, in order, with each run of as many consecutive
 * words of the message. Every word must reach the threshold on its own, where a word's similarity is
 * 1 - distance / (the longer word's length), with distance the optimal string alignment distance
 * (distance.ts): "balanse" ~ "balance" 0.86, "mpessa" ~ "mpesa" 0.83. Except: a keyword word of up to
 * three letters, or one with a digit, must be there exactly ("bei" is not "bee", "1" is not "2",
 * an account number is not a near one). The match's score is the run's combined similarity,
 * 1 - (sum of distances) / (sum of longer lengths); the best run of the first keyword that matches
 * is reported. A message with fewer words than a keyword cannot match it, and words run together or
 * split ("mpesa" / "m pesa") only match as far as the letter-by-letter distance allows.
 */
function fuzzyTest(keywords: KeywordWords[], threshold: number): CompiledRule["test"] {
  const compiled = keywords.map(({ keyword, words }) => {
    const exactOnly = words.map((word) => word.length <= FUZZY_EXACT_MAX_LENGTH || /\p{N}/u.test(word));
    return { keyword, words, exactOnly, exactWords: words.filter((_, i) => exactOnly[i]), masks: words.map(letterMask) };
  });
  // The most edits a pair of words of this longer length may differ by; the epsilon keeps
  // (1 - 0.8) * 5 = 0.9999999999999998 from rounding down to 0.
  const allowedEdits = (longer: number) => Math.floor((1 - threshold) * longer + 1e-9);
  return (message) => {
    const messageWords = message.words;
    for (const { keyword, words, exactOnly, exactWords, masks } of compiled) {
      if (!exactWords.every((word) => message.wordSet.has(word))) continue;
      let best = -1;
      for (let start = 0; start + words.length <= messageWords.length && best < 1; start++) {
        let distance = 0;
        let length = 0;
        let fits = true;
        for (let i = 0; i < words.length && fits; i++) {
          const word = words[i]!;
          const candidate = messageWords[start + i]!;
          const longer = Math.max(word.length, candidate.length);
          length += longer;
          if (word === candidate) continue;
          const allowed = allowedEdits(longer);
          // Cheap refusals first: most pairs of words differ in length or letters by more than allowed.
          if (
            exactOnly[i] ||
            Math.abs(word.length - candidate.length) > allowed ||
            fewestEdits(masks[i]!, message.masks[start + i]!) > allowed
          )
            fits = false;
          else {
            const edits = boundedDistance(word, candidate, allowed);
            distance += edits;
            fits = edits <= allowed;
          }
        }
        if (fits) best = Math.max(best, 1 - distance / length);
      }
      if (best >= 0) return { matched: true, keyword, score: best };
    }
    return NO_MATCH;
  };
}

/**
 * A JavaScript regular expression in Unicode mode, tried on the normalised message text (lower case,
 * no accents, single spaces, punctuation kept). The pattern is lower-cased, its accents removed and its
 * curly quotes made straight the same way (regex-safety.ts, `regexSource`), so case and accents never
 * matter. A pattern `checkRegex` refuses is skipped.
 */
function regexTest(keywords: readonly string[]): Pick<CompiledRule, "skipped" | "test"> {
  const patterns: { keyword: string; expression: RegExp }[] = [];
  const skipped: string[] = [];
  for (const keyword of keywords) {
    if (checkRegex(keyword).ok) patterns.push({ keyword, expression: new RegExp(regexSource(keyword), REGEX_FLAGS) });
    else skipped.push(keyword);
  }
  return {
    skipped,
    test: (message) => {
      for (const { keyword, expression } of patterns) if (expression.test(message.text)) return { matched: true, keyword, score: 1 };
      return NO_MATCH;
    },
  };
}

/** Whether a message matches a compiled rule; a string is normalised first (normalising is idempotent). */
export function matchesRule(rule: CompiledRule, message: NormalisedMessage | string): RuleMatch {
  return rule.test(typeof message === "string" ? normaliseMessage(message) : message);
}

export interface FirstMatch<Rule extends CompiledRule> {
  /** The rule's position in the list given. */
  index: number;
  rule: Rule;
  /** The keyword as the tenant wrote it. */
  keyword: string;
  score: number;
}

/** The first rule, in the order given (highest priority first), that the message matches; null when none does. */
export function firstMatchingRule<Rule extends CompiledRule>(rules: readonly Rule[], message: string): FirstMatch<Rule> | null {
  const normalised = normaliseMessage(message);
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index]!;
    const match = rule.test(normalised);
    if (match.matched) return { index, rule, keyword: match.keyword, score: match.score };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Validation for the rule form: codes, which the form turns into words in the reader's language.

export type KeywordErrorCode =
  | "unknown_match_type"
  /** No keyword given (blank lines do not count). */
  | "none"
  /** More than MAX_KEYWORDS. */
  | "too_many"
  /** Longer than MAX_KEYWORD_LENGTH characters (a regular expression: MAX_REGEX_LENGTH). */
  | "too_long"
  /** Only punctuation, symbols or emoji: nothing a word-based rule can compare. */
  | "no_words"
  /** The same as an earlier keyword once normalised ("Bei" and "bei!"). */
  | "duplicate"
  | "regex_invalid"
  | "regex_unsafe";

export interface KeywordError {
  code: KeywordErrorCode;
  /** The keyword's position in the list given, when the error is about one keyword. */
  index?: number;
}

/**
 * Everything wrong with a rule's keywords, in the list's order; empty when they can be saved. Blank
 * entries are ignored (a form's empty lines). A regular expression's length is checked against its own
 * limit, and `checkRegex` decides the rest.
 */
export function checkKeywords(keywords: readonly string[], matchType: string): KeywordError[] {
  if (!isMatchType(matchType)) return [{ code: "unknown_match_type" }];
  const given = keywords.map((keyword, index) => ({ keyword, index })).filter(({ keyword }) => keyword.trim() !== "");
  if (given.length === 0) return [{ code: "none" }];
  const errors: KeywordError[] = [];
  if (given.length > MAX_KEYWORDS) errors.push({ code: "too_many" });
  const seen = new Set<string>();
  for (const { keyword, index } of given) {
    const code = matchType === "regex" ? regexKeywordError(keyword) : wordKeywordError(keyword);
    if (code) {
      errors.push({ code, index });
      continue;
    }
    const key = matchType === "regex" ? regexSource(keyword) : wordsOf(normaliseText(keyword)).join(" ");
    if (seen.has(key)) errors.push({ code: "duplicate", index });
    seen.add(key);
  }
  return errors;
}

function wordKeywordError(keyword: string): KeywordErrorCode | null {
  if ([...keyword.trim()].length > MAX_KEYWORD_LENGTH) return "too_long";
  if (wordsOf(normaliseText(keyword)).length === 0) return "no_words";
  return null;
}

function regexKeywordError(pattern: string): KeywordErrorCode | null {
  const check = checkRegex(pattern);
  if (check.ok) return null;
  return check.reason === "too_long" ? "too_long" : check.reason === "invalid" ? "regex_invalid" : "regex_unsafe";
}

export type RuleErrorCode = KeywordErrorCode | "threshold_out_of_range";

/** `checkKeywords`, and for a fuzzy rule its threshold (0.5 to 1). */
export function checkRule({ matchType, keywords, threshold }: { matchType: string; keywords: readonly string[]; threshold?: number }) {
  const errors: { code: RuleErrorCode; index?: number }[] = checkKeywords(keywords, matchType);
  if (
    matchType === "fuzzy" &&
    threshold !== undefined &&
    !(Number.isFinite(threshold) && threshold >= MIN_FUZZY_THRESHOLD && threshold <= MAX_FUZZY_THRESHOLD)
  )
    errors.push({ code: "threshold_out_of_range" });
  return errors;
}
