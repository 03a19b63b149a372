import { describe, expect, it } from "vitest";
import { inLocale } from "../../infrastructure/http/display-zone";
import { englishOf, sayIn } from "../../infrastructure/words/said";
import { sampleMessage } from "../../infrastructure/words/samples";
import { PAUSE_REASONS, storedWords } from "./stored-words";

// A campaign's pause reason is stored in English and said in its reader's language: every reason
// listed reads back from its English as itself.

describe("a campaign's stored pause reasons", () => {
  it.each(PAUSE_REASONS.list.map((sentence) => [sentence[0], sentence] as const))(
    "%s reads back and is said in each language",
    (_, sentence) => {
      const message = sampleMessage(sentence);
      const english = englishOf(message);
      expect(PAUSE_REASONS.read(english)).toEqual(message);
      expect(inLocale("sw", () => storedWords(english))).toBe(sayIn("sw", message));
      expect(inLocale("fr", () => storedWords(english))).toBe(sayIn("fr", message));
      expect(storedWords(english)).toBe(english);
    },
  );

  it("says a send refusal the feeder paused a campaign for, and leaves a text it does not know as stored", () => {
    const refused =
      "Meta no longer accepts Jumbe's access to the WhatsApp account of +254 711 000111. Connect it again on the WhatsApp page, then send.";
    expect(inLocale("sw", () => storedWords(refused))).not.toBe(refused);
    expect(inLocale("sw", () => storedWords(refused))).toContain("+254 711 000111");
    expect(inLocale("fr", () => storedWords("(#131000) Something went wrong"))).toBe("(#131000) Something went wrong");
  });
});
