import { describe, expect, it } from "vitest";
import {
  AFTER_TOOL_TEXT,
  asksForPerson,
  bestPassage,
  decide,
  magicOf,
  NO_ANSWER_TEXT,
  passagesOf,
  score,
  significantWords,
  tokensOf,
} from "./answer";

const KNOWLEDGE = [
  "You answer from these passages.",
  "[K1] We deliver anywhere in Nairobi within two days; delivery costs KES 200.",
  "[K2] The shop opens at 8 am and closes at 6 pm, Monday to Saturday.",
  "[K3] Bei ya mkate ni shilingi sitini.",
  "  [K4] Returns are accepted within 14 days with the receipt.",
  "Not a passage: [K5] in the middle of a line.",
  "[K6]no space after the marker",
].join("\n");

describe("the knowledge markers", () => {
  it("reads the lines that start with [K<n>] and a space, without the marker", () => {
    expect(passagesOf([KNOWLEDGE])).toEqual([
      { n: 1, text: "We deliver anywhere in Nairobi within two days; delivery costs KES 200." },
      { n: 2, text: "The shop opens at 8 am and closes at 6 pm, Monday to Saturday." },
      { n: 3, text: "Bei ya mkate ni shilingi sitini." },
      { n: 4, text: "Returns are accepted within 14 days with the receipt." },
    ]);
  });

  it("reads passages across several system messages, in order", () => {
    expect(passagesOf(["[K1] first", "[K2] second\r\n[K3] third"]).map((p) => p.n)).toEqual([1, 2, 3]);
  });
});

describe("scoring", () => {
  it("keeps words of three or more characters, lower-cased, accents stripped, without stop words", () => {
    expect(significantWords("What are the OPENING hours of the café? Je, bei ni gani?")).toEqual(["opening", "hours", "cafe", "bei"]);
  });

  it("counts the question's words the passage shares, a word and its longer form alike", () => {
    expect(score("When do you open?", "The shop opens at 8 am")).toBe(1);
    expect(score("delivery to Nairobi", "We deliver anywhere in Nairobi")).toBe(2);
    expect(score("hello there", "The shop opens at 8 am")).toBe(0);
  });

  it("answers the best passage, the first of equals", () => {
    const passages = passagesOf([KNOWLEDGE]);
    expect(bestPassage("How much is delivery to Nairobi?", passages)?.n).toBe(1);
    expect(bestPassage("Bei ya mkate ni ngapi?", passages)?.n).toBe(3);
    expect(bestPassage("Can I return shoes? I have the receipt", passages)?.n).toBe(4);
    expect(bestPassage("Saturday delivery?", passages)?.n).toBe(1);
    expect(bestPassage("Do you sell bicycles?", passages)).toBeUndefined();
  });
});

describe("asking for a person", () => {
  it.each([
    "Can I talk to an agent?",
    "I want a HUMAN",
    "Is there a real person there?",
    "nataka kuongea na mtu",
    "Nataka kuongea na binadamu tafadhali",
    "niongee na msee wa customer care",
    "customer service please",
  ])("hears %j", (text) => {
    expect(asksForPerson(text)).toBe(true);
  });

  it.each(["What does delivery cost?", "Mtumiaji mpya", "personal details", "agency banking"])("does not hear %j", (text) => {
    expect(asksForPerson(text)).toBe(false);
  });
});

describe("magic values", () => {
  it("finds them anywhere in the message, in any case", () => {
    expect(magicOf("please MAGIC:429 now")).toBe("rate_limited");
    expect(magicOf("magic:quota")).toBe("quota");
    expect(magicOf("x magic:500")).toBe("server_error");
    expect(magicOf("magic:timeout")).toBe("timeout");
    expect(magicOf("magic:filter")).toBe("filtered");
    expect(magicOf("magic:something")).toBeUndefined();
  });
});

describe("decide", () => {
  const ask = (question: string, tools: string[] = ["handover"], afterTool = false) =>
    decide({ question, systemTexts: [KNOWLEDGE], tools, afterTool });

  it("answers from the knowledge", () => {
    expect(ask("When does the shop close?")).toEqual({
      kind: "answer",
      content: "The shop opens at 8 am and closes at 6 pm, Monday to Saturday.",
      passage: 2,
    });
  });

  it("hands over when asked for a person, before any passage", () => {
    expect(ask("delivery? nataka kuongea na mtu")).toEqual({ kind: "tool", name: "handover", arguments: { reason: "customer_asked" } });
  });

  it("hands over when nothing answers", () => {
    expect(ask("Do you sell bicycles?")).toEqual({ kind: "tool", name: "handover", arguments: { reason: "no_answer" } });
  });

  it("without the handover tool: answers the knowledge even to a request for a person, else says it does not know", () => {
    expect(ask("I want a person to tell me about delivery", [])).toMatchObject({ kind: "answer", passage: 1 });
    expect(ask("Do you sell bicycles?", ["lookup_order"])).toEqual({ kind: "answer", content: NO_ANSWER_TEXT });
  });

  it("after a tool's result, says a person will reply", () => {
    expect(ask("agent", ["handover"], true)).toEqual({ kind: "answer", content: AFTER_TOOL_TEXT });
  });
});

describe("tokens", () => {
  it("are a quarter of the characters, rounded up", () => {
    expect(tokensOf("")).toBe(0);
    expect(tokensOf("abcd")).toBe(1);
    expect(tokensOf("abcde")).toBe(2);
    expect(tokensOf("😀😀😀😀")).toBe(1);
  });
});
