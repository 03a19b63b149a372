import { describe, expect, it } from "vitest";
import { countFirings, foldContactChanges, type FiredRule } from "./batch-effects";

const fired = (ruleId: string, contactId: string, actions: FiredRule["actions"]): FiredRule => ({
  ruleId,
  contactId,
  organizationId: "org",
  runId: `${ruleId}-${contactId}`,
  actions,
});

describe("a batch's rule effects folded into one change a contact", () => {
  it("applies tags in the order the rules fired: a later removal wins, a tag added back is kept", () => {
    const changes = foldContactChanges([
      fired("r1", "c1", [{ type: "tags", add: ["vip", "lead"], remove: ["cold"] }]),
      fired("r2", "c1", [{ type: "tags", add: ["cold"], remove: ["lead"] }]),
      fired("r3", "c2", [{ type: "reply", text: "Karibu" }]),
    ]);
    expect(changes.get("c1")).toEqual({ add: ["cold", "vip"], remove: ["lead"], fields: {} });
    // A contact whose rules change no tag or field has no change at all.
    expect(changes.has("c2")).toBe(false);
  });

  it("a tag one action both adds and removes is removed, as a single rule's update does", () => {
    const changes = foldContactChanges([fired("r1", "c1", [{ type: "tags", add: ["x"], remove: ["x"] }])]);
    expect(changes.get("c1")).toEqual({ add: [], remove: ["x"], fields: {} });
  });

  it("merges fields with the later rule's value winning, keeping each value's type", () => {
    const changes = foldContactChanges([
      fired("r1", "c1", [
        { type: "field", key: "county", value: "Nakuru" },
        { type: "field", key: "orders", value: 2 },
      ]),
      fired("r2", "c1", [{ type: "field", key: "county", value: "Kisumu" }]),
    ]);
    expect(changes.get("c1")?.fields).toEqual({ county: "Kisumu", orders: 2 });
  });

  it("counts each rule's firings for its figures", () => {
    const counts = countFirings([fired("r1", "c1", []), fired("r1", "c2", []), fired("r2", "c1", [])]);
    expect(Object.fromEntries(counts)).toEqual({ r1: 2, r2: 1 });
  });
});
