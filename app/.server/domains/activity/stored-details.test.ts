import { describe, expect, it } from "vitest";
import { englishOf, sayIn, type Message, type Said } from "../../infrastructure/words/said";
import type { StoredInput, StoredSentences } from "../../infrastructure/words/stored";
import { STORED_DETAILS } from "./stored-details";

// Every sentence listed reads back from its own English as itself (not as a sentence listed
// before it), with its inputs, and says something else in Swahili and French.

/** A sample of an input's kind, as a writer would give it. */
function sample(kind: StoredInput, name: string): Said {
  if (kind === "data") return `Wanjiru ${name}`;
  if (kind === "count") return 1234;
  if (kind === "kes") return { kes: 123_450 };
  if (kind === "day") return { day: "2026-12-01" };
  if (kind === "month") return { month: "2026-11" };
  if (Array.isArray(kind)) return [kind.at(-1)!];
  const [key, inputs = {}] = (kind as StoredSentences).list[0]!;
  return [key, Object.fromEntries(Object.entries(inputs).map(([inner, innerKind]) => [inner, sample(innerKind, inner)]))];
}

describe("the activity details Jumbe writes from inputs", () => {
  it.each(STORED_DETAILS.list.map(([key, inputs]) => [key, inputs ?? {}] as const))(
    "%s reads back and is said in each language",
    (key, inputs) => {
      const message: Message = [key, Object.fromEntries(Object.entries(inputs).map(([name, kind]) => [name, sample(kind, name)]))];
      const english = englishOf(message);
      expect(STORED_DETAILS.read(english)).toEqual(Object.keys(inputs).length ? message : [key]);
      expect(STORED_DETAILS.say(english, "en")).toBe(english);
      expect(STORED_DETAILS.say(english, "sw")).toBe(sayIn("sw", message));
      expect(sayIn("sw", message)).not.toBe(english);
      expect(sayIn("fr", message)).not.toBe(english);
    },
  );
});
