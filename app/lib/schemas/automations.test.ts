import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import {
  AUTOMATION_MESSAGES,
  AutomationSettingsSchema,
  RuleFormSchema,
  ruleFormValues,
  ruleInputOf,
  settingsFormValues,
  settingsInputOf,
} from "./automations";

const posted = (fields: Record<string, string>) => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
};

describe("the rule form", () => {
  it("reads keywords a line, tags by commas, a similarity written either way, and blanks as nothing", () => {
    const submission = parseWithZod(
      posted({
        name: " Bei ",
        matchType: "fuzzy",
        keywords: "bei\r\n\r\n  price list \n",
        threshold: "0,85",
        cooldownMinutes: "30",
        reply: "Bei zetu",
        buttons: " Starter \r\n\nBusiness",
        addTags: " asked-price, ,lead ",
        removeTags: "",
        phoneNumberId: "",
        assignTo: "",
      }),
      { schema: RuleFormSchema },
    );
    expect(submission.status).toBe("success");
    if (submission.status !== "success") return;
    expect(ruleInputOf(submission.value)).toEqual({
      name: "Bei",
      matchType: "fuzzy",
      keywords: ["bei", "  price list "],
      threshold: 0.85,
      phoneNumberId: null,
      fromAd: null,
      cooldownMinutes: 30,
      reply: "Bei zetu",
      buttons: ["Starter", "Business"],
      listButton: "",
      listRows: [],
      template: null,
      templateParameters: [],
      addTags: ["asked-price", "lead"],
      removeTags: [],
      assignTo: null,
      setField: null,
      webhookUrl: null,
      then: null,
      flowId: null,
      products: null,
    });
  });

  it("shows a saved rule's fields as it was written", () => {
    expect(
      ruleFormValues({
        name: "Prices",
        matchType: "contains",
        keywords: ["bei", "price"],
        threshold: null,
        phoneNumberId: null,
        cooldownMinutes: 0,
        actions: [
          { type: "tags", add: ["a", "b"], remove: ["c"] },
          { type: "assign", userId: "u1" },
        ],
      }),
    ).toEqual({
      name: "Prices",
      matchType: "contains",
      keywords: "bei\nprice",
      threshold: "0.8",
      phoneNumberId: "",
      fromAd: "",
      cooldownMinutes: "0",
      reply: "",
      buttons: "",
      listButton: "",
      listRows: "",
      template: "",
      templateParameters: "",
      addTags: "a, b",
      removeTags: "c",
      assignTo: "u1",
      fieldKey: "",
      fieldValue: "",
      webhookUrl: "",
      then: "",
      flowId: "",
      productKind: "",
      productIds: "",
      productHeader: "",
      productBody: "",
    });
    // A rule that sends products shows its kind, its products a line each, its heading and text.
    expect(
      ruleFormValues({
        name: "Catalogue",
        matchType: "contains",
        keywords: ["bidhaa"],
        threshold: null,
        phoneNumberId: null,
        cooldownMinutes: 0,
        actions: [{ type: "products", kind: "product_list", productIds: ["p1", "p2"], header: "Bidhaa zetu", body: "Chagua" }],
      }),
    ).toMatchObject({ productKind: "product_list", productIds: "p1\np2", productHeader: "Bidhaa zetu", productBody: "Chagua" });
    expect(
      ruleFormValues({
        name: "Claims",
        matchType: "contains",
        keywords: ["claim"],
        threshold: null,
        phoneNumberId: null,
        cooldownMinutes: 0,
        actions: [{ type: "reply", text: "Pole", buttons: ["Gari", "Afya"] }, { type: "handover" }],
      }),
    ).toMatchObject({ reply: "Pole", buttons: "Gari\nAfya", assignTo: "least_busy" });
    expect(
      ruleFormValues({
        name: "Branches",
        matchType: "contains",
        keywords: ["tawi"],
        threshold: null,
        phoneNumberId: null,
        cooldownMinutes: 0,
        actions: [
          { type: "reply", text: "Chagua", list: { button: "Matawi", rows: ["Kericho", "Litein"] } },
          { type: "template", name: "bei_ya_chai", language: "en", parameters: ["KES 24"] },
        ],
      }),
    ).toMatchObject({ listButton: "Matawi", listRows: "Kericho\nLitein", template: "bei_ya_chai|en", templateParameters: "KES 24" });
  });

  it("refuses a list without its button or reply, too many or long choices, a list with buttons, and a template with a text", () => {
    const base = { name: "Branches", matchType: "contains", keywords: "tawi", reply: "Chagua tawi" };
    const errors = (fields: Record<string, string>) => {
      const submission = parseWithZod(posted({ ...base, ...fields }), { schema: RuleFormSchema });
      return submission.status === "error" ? submission.error : null;
    };
    const list = [
      "Give up to 10 different choices, one a line, each at most 24 characters, a list button of at most 20 characters, and the reply they answer.",
    ];
    expect(errors({ listRows: "Kericho\nLitein" })).toEqual({ listRows: list });
    expect(errors({ listButton: "Matawi", listRows: Array.from({ length: 11 }, (_, i) => `Tawi ${i}`).join("\n") })).toEqual({
      listRows: list,
    });
    expect(errors({ listButton: "Matawi", listRows: "x".repeat(25) })).toEqual({ listRows: list });
    expect(errors({ listButton: "Matawi", listRows: "Kericho", reply: "", addTags: "x" })).toEqual({ listRows: list });
    expect(errors({ listButton: "Matawi", listRows: "Kericho", buttons: "Gari" })).toEqual({
      listRows: ["Reply buttons or a list, not both."],
    });
    expect(errors({ template: "bei_ya_chai|en" })).toEqual({ template: ["A rule replies with a text or a template, not both."] });
    expect(errors({ listButton: "Matawi", listRows: "Kericho\nLitein" })).toBeNull();
    expect(errors({ reply: "", template: "bei_ya_chai|en" })).toBeNull();
  });

  it("refuses more than three buttons, a long or repeated one, and buttons without a reply", () => {
    const base = { name: "Claims", matchType: "contains", keywords: "claim", reply: "Pole" };
    const errors = (fields: Record<string, string>) => {
      const submission = parseWithZod(posted({ ...base, ...fields }), { schema: RuleFormSchema });
      return submission.status === "error" ? submission.error : null;
    };
    const tooMany = ["Give up to 3 different buttons, one a line, each at most 20 characters."];
    expect(errors({ buttons: "A\nB\nC\nD" })).toEqual({ buttons: tooMany });
    expect(errors({ buttons: "x".repeat(21) })).toEqual({ buttons: tooMany });
    expect(errors({ buttons: "Gari\ngari" })).toEqual({ buttons: tooMany });
    expect(errors({ buttons: "Gari", reply: "", addTags: "claim" })).toEqual({
      buttons: ["Buttons go with a reply: write the reply they answer."],
    });
    expect(errors({ buttons: "Gari\nAfya" })).toBeNull();
  });
});

describe("the hours form", () => {
  it("keeps a day's complete opening times, first first, and shows 24:00 as the midnight a time box can hold", () => {
    const submission = parseWithZod(
      posted({
        "from-1-0": "08:00",
        "to-1-0": "24:00",
        "from-2-1": "20:00",
        "to-2-1": "02:00",
        holidays: "2026-12-25\n",
        holidayMode: "on",
      }),
      { schema: AutomationSettingsSchema },
    );
    expect(submission.status).toBe("success");
    if (submission.status !== "success") return;
    const input = settingsInputOf(submission.value);
    expect(input).toMatchObject({
      welcomeEnabled: false,
      holidayMode: true,
      holidays: ["2026-12-25"],
      days: { 0: [], 1: [{ from: "08:00", to: "24:00" }], 2: [{ from: "20:00", to: "02:00" }] },
    });
    expect(settingsFormValues(input)).toMatchObject({ "from-1-0": "08:00", "to-1-0": "00:00", "from-2-0": "20:00", "from-2-1": "" });
  });

  it("says at its box a time that does not exist, and half an opening time at the half missing", () => {
    const submission = parseWithZod(posted({ "from-1-0": "25:00", "to-1-0": "17:00", "from-3-1": "09:00" }), {
      schema: AutomationSettingsSchema,
    });
    expect(submission.status).toBe("error");
    expect(submission.reply().error).toEqual({ "from-1-0": [AUTOMATION_MESSAGES.time], "to-3-1": [AUTOMATION_MESSAGES.rangeIncomplete] });
  });
});
