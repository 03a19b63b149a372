import { describe, expect, it } from "vitest";
import { englishOf, sayIn } from "../../infrastructure/words/said";
import { sampleMessage } from "../../infrastructure/words/samples";
import { STORED_DETAILS } from "./stored-details";

// Every sentence listed reads back from its own English as itself (not as a sentence listed
// before it), with its inputs, and says something else in Swahili and French.

describe("the activity details Jumbe writes from inputs", () => {
  it("leaves a person's own words as they are", () => {
    expect(STORED_DETAILS.read("Wanjiru asked for the March statement again")).toBeUndefined();
  });

  it.each(STORED_DETAILS.list.map((sentence) => [sentence[0], sentence] as const))(
    "%s reads back and is said in each language",
    (_, sentence) => {
      const message = sampleMessage(sentence);
      const english = englishOf(message);
      expect(STORED_DETAILS.read(english)).toEqual(message);
      expect(STORED_DETAILS.say(english, "en")).toBe(english);
      expect(STORED_DETAILS.say(english, "sw")).toBe(sayIn("sw", message));
      expect(sayIn("sw", message)).not.toBe(english);
      expect(sayIn("fr", message)).not.toBe(english);
    },
  );
});
