import { describe, expect, it } from "vitest";
import { Refusal } from "../refusal";
import { refusalJson, refusalOf, refusalReply, refusalToast, throwIfNotFound } from "./refusal-reply";

// Conform's reply, reduced to what it was asked to say.
const submission = { reply: (options: object) => options };

const taken = new Refusal({ domain: "quick_reply", status: 409, message: "/hi is taken already.", field: "shortcut" });
const closing = new Refusal({
  domain: "organisation",
  status: 409,
  code: "already_closing",
  message: "The organisation is already closing.",
});

describe("a refusal's answers", () => {
  it("says a refusal at its field, above the form without one, and hides the secret fields", () => {
    const atField = refusalReply(submission, taken, { extra: { intent: "add" } });
    expect(atField.init?.status).toBe(409);
    expect(atField.data).toMatchObject({ result: { fieldErrors: { shortcut: ["/hi is taken already."] } }, toast: null, intent: "add" });

    const aboveForm = refusalReply(submission, closing, { hideFields: ["password"] });
    expect(aboveForm.data.result).toEqual({ formErrors: ["The organisation is already closing."], hideFields: ["password"] });

    const moved = refusalReply(submission, taken, { field: null, status: 422, toast: true });
    expect(moved.init?.status).toBe(422);
    expect(moved.data).toMatchObject({ result: { formErrors: ["/hi is taken already."] }, toast: { message: "/hi is taken already." } });
  });

  it("says it in a toast, or as JSON with its code and field", async () => {
    const toast = refusalToast(closing, { intent: "close" });
    expect(toast.init?.status).toBe(409);
    expect(toast.data).toMatchObject({
      result: null,
      toast: { type: "error", message: "The organisation is already closing." },
      intent: "close",
    });

    const json = refusalJson(taken);
    expect(json.status).toBe(409);
    expect(await json.json()).toEqual({ message: "/hi is taken already.", code: "conflict", field: "shortcut" });
  });

  it("makes a refused unknown target the page's 404, and throws on anything that is not a refusal", () => {
    const gone = new Refusal({ domain: "campaign", status: 404, code: "campaign_not_found", message: "No such campaign." });
    expect(() => throwIfNotFound(gone, "Campaign not found.")).toThrow(
      expect.objectContaining({ data: "Campaign not found.", init: { status: 404 } }),
    );
    expect(() => throwIfNotFound(closing)).not.toThrow();
    const outage = new Error("connection refused");
    expect(() => refusalOf(outage)).toThrow(outage);
    expect(refusalOf(taken)).toBe(taken);
  });
});
