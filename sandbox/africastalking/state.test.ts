import { describe, expect, it } from "vitest";
import { SmsState, type SentMessage } from "./state";

describe("the sandbox's record of messages sent", () => {
  it("keeps the last 2,000 and counts every one, for a benchmark's check at scale", () => {
    const state = new SmsState([]);
    const message = (i: number): Omit<SentMessage, "index"> => ({
      username: "jumbe-demo",
      from: "JUMBE",
      message: `SMS ${i}`,
      encoding: "GSM-7",
      parts: 1,
      enqueue: false,
      at: i,
      recipients: [],
    });
    for (let i = 0; i < 2_005; i++) state.record(message(i));
    expect(state.sent).toHaveLength(2_000);
    expect(state.sent[0]).toMatchObject({ index: 5, message: "SMS 5" });
    expect(state.sentTotal).toBe(2_005);
    // A reset forgets the messages, not the count (the indexes stay unique).
    state.reset();
    expect(state.sent).toHaveLength(0);
    expect(state.sentTotal).toBe(2_005);
  });
});
