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
      recipients: [
        { number: "+254711000001", statusCode: 101, status: "Success", cost: "KES 0.8000", messageId: `ATXid_${i}a` },
        { number: "+254700000406", statusCode: 406, status: "UserInBlacklist", cost: "0", messageId: "None" },
      ],
    });
    for (let i = 0; i < 2_005; i++) state.record(message(i));
    expect(state.sent).toHaveLength(2_000);
    expect(state.sent[0]).toMatchObject({ index: 5, message: "SMS 5" });
    expect(state.sentTotal).toBe(2_005);
    // One send to two numbers, one accepted: recipients are counted apart from sends.
    expect(state.acceptedTotal).toBe(2_005);
    // A reset forgets the messages, not the count (the indexes stay unique).
    state.reset();
    expect(state.sent).toHaveLength(0);
    expect(state.sentTotal).toBe(2_005);
  });
});
