/**
 * How the model sandbox answers, deterministically: no model, no randomness. The knowledge is the
 * lines of the system messages that start with a marker `[K<n>] ` (Jumbe's prompt lists its
 * passages that way); the answer is the passage whose significant words overlap most with the
 * customer's last message. Asking for a person, or a question nothing answers, calls the
 * `handover` tool when the request offers it.
 */

/** The one model the sandbox serves (GET /v1/models). */
export const SANDBOX_MODEL = "jumbe-sandbox-1";
/** The tool the sandbox calls to hand a conversation to a person, when the request offers it. */
export const HANDOVER_TOOL = "handover";
/** What the sandbox says when nothing in the knowledge answers and no `handover` tool is offered. */
export const NO_ANSWER_TEXT = "I do not know.";
/** What it says after a tool's result (the last message has the role `tool`). */
export const AFTER_TOOL_TEXT = "Thank you. A person from the team will reply here soon.";

/** A line of a system message that is a knowledge passage: `[K<n>] <text>`. */
const PASSAGE_LINE = /^\s*\[K(\d{1,6})\] (.*\S.*)$/;

/**
 * Words that say nothing about what is asked, in English and Swahili (only words of three letters
 * or more matter: shorter ones are never significant).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  [
    // English
    "the and for are but not you your yours all any can could had has have her his was were our out who what when",
    "where which why how with this that these those there their them they then than from into about will would should",
    "does did its also just some more very too been here yes please thanks thank hello hey want need know tell like get",
    "may much many",
    // Swahili
    "hii hiyo hizi hizo huyo kwa kwenye katika lakini pia sana kama nini gani wapi lini vipi nani mimi wewe yeye sisi",
    "ninyi wao yangu yako yake yetu yenu yao hapa huko kuna nina una ana tuna habari jambo sasa ndio hapana asante",
    "tafadhali nataka naomba ningependa kwamba ile hivyo",
  ]
    .join(" ")
    .split(" "),
);

/** Single words that ask for a person (English, Swahili, Sheng). */
export const HANDOVER_WORDS: ReadonlySet<string> = new Set(
  "agent agents human humans person representative operator mtu binadamu mhudumu msee".split(" "),
);

/** Phrases that ask for a person, matched on whole words. */
export const HANDOVER_PHRASES: readonly string[] = [
  "customer care",
  "customer service",
  "talk to someone",
  "speak to someone",
  "real person",
  "nataka kuongea na mtu",
  "niongee na mtu",
];

/** The magic values, in the last user message (any case): each makes the sandbox answer one way. */
export const MAGIC = {
  "magic:429": "rate_limited",
  "magic:quota": "quota",
  "magic:500": "server_error",
  "magic:timeout": "timeout",
  "magic:filter": "filtered",
  // As real servers fail: an overloaded one (503 with retry-after), an OpenAI-compatible proxy that
  // answers 200 with an error body, llama.cpp's server answering without `usage`.
  "magic:503": "overloaded",
  "magic:error-body": "error_body",
  "magic:no-usage": "no_usage",
} as const;

export type Magic = (typeof MAGIC)[keyof typeof MAGIC];

/** Lower-cased, accents stripped. */
export const normalise = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();

/** Every word (letters or digits) of a text, normalised. */
export const wordsOf = (text: string) => normalise(text).match(/[\p{L}\p{N}]+/gu) ?? [];

/** The words that count: three characters or more, not a stop word; each once. */
export function significantWords(text: string): string[] {
  return [...new Set(wordsOf(text).filter((word) => [...word].length >= 3 && !STOP_WORDS.has(word)))];
}

/** Two words match when equal, or when both have 4+ characters and one begins the other ("hour", "hours"). */
function matches(a: string, b: string) {
  if (a === b) return true;
  return a.length >= 4 && b.length >= 4 && (a.startsWith(b) || b.startsWith(a));
}

export interface Passage {
  /** The marker's number: `[K3]` is 3. */
  n: number;
  text: string;
}

/** The knowledge passages of the system messages' text, in order. */
export function passagesOf(systemTexts: readonly string[]): Passage[] {
  const passages: Passage[] = [];
  for (const text of systemTexts)
    for (const line of text.split(/\r?\n/)) {
      const match = PASSAGE_LINE.exec(line);
      if (match) passages.push({ n: Number(match[1]), text: match[2]!.trim() });
    }
  return passages;
}

/** How many of the question's significant words the passage has. */
export function score(question: string, passage: string): number {
  const passageWords = significantWords(passage);
  return significantWords(question).filter((word) => passageWords.some((other) => matches(word, other))).length;
}

/** The best passage (highest score, the first of equals), or undefined when none scores above 0. */
export function bestPassage(question: string, passages: readonly Passage[]): Passage | undefined {
  let best: Passage | undefined;
  let bestScore = 0;
  for (const passage of passages) {
    const points = score(question, passage.text);
    if (points > bestScore) {
      best = passage;
      bestScore = points;
    }
  }
  return best;
}

/** Whether the message asks for a person. */
export function asksForPerson(text: string): boolean {
  const words = wordsOf(text);
  if (words.some((word) => HANDOVER_WORDS.has(word))) return true;
  const joined = ` ${words.join(" ")} `;
  return HANDOVER_PHRASES.some((phrase) => joined.includes(` ${phrase} `));
}

/** The first magic value in the message, if any. */
export function magicOf(text: string): Magic | undefined {
  const lower = text.toLowerCase();
  for (const [value, magic] of Object.entries(MAGIC)) if (lower.includes(value)) return magic;
  return undefined;
}

/** Tokens as the sandbox counts them: a quarter of the characters, rounded up. */
export const tokensOf = (text: string) => Math.ceil([...text].length / 4);

export type Decision =
  | { kind: "answer"; content: string; passage?: number }
  | { kind: "tool"; name: string; arguments: { reason: "customer_asked" | "no_answer" } };

/**
 * What the model answers to a conversation: `question` is the last user message, `systemTexts`
 * the system messages, `afterTool` whether the last message is a tool's result, `tools` the names
 * of the functions offered.
 */
export function decide(input: {
  question: string;
  systemTexts: readonly string[];
  afterTool: boolean;
  tools: readonly string[];
}): Decision {
  if (input.afterTool) return { kind: "answer", content: AFTER_TOOL_TEXT };
  const canHandOver = input.tools.includes(HANDOVER_TOOL);
  if (canHandOver && asksForPerson(input.question)) return { kind: "tool", name: HANDOVER_TOOL, arguments: { reason: "customer_asked" } };
  const best = bestPassage(input.question, passagesOf(input.systemTexts));
  if (best) return { kind: "answer", content: best.text, passage: best.n };
  if (canHandOver) return { kind: "tool", name: HANDOVER_TOOL, arguments: { reason: "no_answer" } };
  return { kind: "answer", content: NO_ANSWER_TEXT };
}
