import { describe, expect, it } from "vitest";
import { BODY_LIMITS, bodyLimitFor } from "./body-limit";

describe("body limits", () => {
  it("lets the campaign forms and the campaigns API carry 10,000 numbers, and nothing else more than the default", () => {
    for (const path of ["/messaging/campaigns/new", "/messaging/broadcasts/new", "/messaging/campaigns/new.data", "/api/v1/campaigns"])
      expect(bodyLimitFor(path)).toBe(BODY_LIMITS.campaignForm);
    // 10,000 numbers such as "+254712345678," with the form's framing.
    expect(BODY_LIMITS.campaignForm).toBeGreaterThan(10_000 * 16 * 2);
    for (const path of ["/messaging/campaigns/123", "/api/v1/campaigns/123/pause", "/messaging"])
      expect(bodyLimitFor(path)).toBe(BODY_LIMITS.default);
  });
});
