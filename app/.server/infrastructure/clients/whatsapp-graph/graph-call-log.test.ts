import { describe, expect, it } from "vitest";
import { isRecordedStep, recordedPath } from "./graph-call-log";

describe("graph_call_log's records", () => {
  it("keep the path without the version's query (secrets, an upload session's signature)", () => {
    expect(recordedPath("104871265530912/subscribed_apps")).toBe("/104871265530912/subscribed_apps");
    expect(recordedPath("upload:MTphdHRhY2htZW50?sig=ARZ-secret")).toBe("/upload:MTphdHRhY2htZW50");
    expect(recordedPath("oauth/access_token")).toBe("/oauth/access_token");
  });

  it("leave message sends and read receipts to the messages table", () => {
    expect(isRecordedStep("messages.send")).toBe(false);
    expect(isRecordedStep("messages.read")).toBe(false);
    expect(isRecordedStep("subscribed_apps")).toBe(true);
    expect(isRecordedStep("template.list")).toBe(true);
  });
});
