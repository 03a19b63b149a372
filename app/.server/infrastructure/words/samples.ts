import type { Message, Said } from "./said";
import type { StoredInput, StoredSentence, StoredSentences } from "./stored";

/**
 * For tests: a stored sentence's message with a sample of each input's kind, as a writer would give
 * it, so a test can write its English, read it back and say it in each language.
 */
export function sampleMessage([key, inputs = {}]: StoredSentence): Message {
  const names = Object.entries(inputs);
  return names.length ? [key, Object.fromEntries(names.map(([name, kind]) => [name, sampleInput(kind, name)]))] : [key];
}

function sampleInput(kind: StoredInput, name: string): Said {
  if (kind === "data") return `Wanjiru ${name}`;
  if (kind === "instant") return "2026-11-27T09:00:00.000Z";
  if (kind === "count") return 1234;
  if (kind === "kes") return { kes: 123_450 };
  if (kind === "day") return { day: "2026-12-01" };
  if (kind === "month") return { month: "2026-11" };
  if (Array.isArray(kind)) return [kind.at(-1)!];
  return sampleMessage((kind as StoredSentences).list[0]!);
}
