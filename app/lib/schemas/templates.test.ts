import { describe, expect, it } from "vitest";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  problemErrors,
  TemplateFieldsSchema,
  TemplateFiltersSchema,
  TemplateFormSchema,
  TemplateListActionSchema,
  TemplatePostSchema,
} from "./templates";

/** The template form as a browser posts it. */
function posted(fields: [string, string][]) {
  const form = new FormData();
  for (const [key, value] of fields) form.append(key, value);
  return form;
}

const marketing: [string, string][] = [
  ["name", "season_launch"],
  ["category", "MARKETING"],
  ["language", "sw"],
  ["headerFormat", "NONE"],
  ["body", "Habari {{1}}, order {{2}} ships today."],
  ["bodyExamples", "Amina"],
  ["bodyExamples", "KE-1042"],
  ["footer", ""],
  ["buttonCount", "2"],
  ["buttons[0].type", "QUICK_REPLY"],
  ["buttons[0].text", "Track order"],
  ["buttons[1].type", "URL"],
  ["buttons[1].text", "Open"],
  ["buttons[1].url", "https://example.co.ke/{{1}}"],
  ["buttons[1].example", "KE-1042"],
];

describe("the template form's schema", () => {
  it("reads the fields, the body's examples and the button rows as the template they make", () => {
    for (const disableAutoCoercion of [false, true]) {
      const submission = parseWithZod(posted(marketing), { schema: TemplateFormSchema, disableAutoCoercion });
      expect(submission.status).toBe("success");
      expect(submission.status === "success" && submission.value).toMatchObject({
        name: "season_launch",
        category: "MARKETING",
        language: "sw",
        bodyExamples: ["Amina", "KE-1042"],
        footer: undefined,
        buttons: [
          { type: "QUICK_REPLY", text: "Track order" },
          { type: "URL", text: "Open", url: "https://example.co.ke/{{1}}", example: "KE-1042" },
        ],
      });
    }
  });

  it("says each problem at its field, as the server would", () => {
    const form = posted([
      ...marketing.filter(([key]) => key !== "name" && key !== "bodyExamples" && key !== "buttons[0].text"),
      ["bodyExamples", "Amina"],
      ["bodyExamples", ""],
    ]);
    const submission = parseWithZod(form, { schema: TemplateFormSchema });
    expect(submission.status).toBe("error");
    expect(submission.reply().error).toMatchObject({
      name: ["Enter a template name."],
      "bodyExamples[1]": [expect.any(String)],
      "buttons[0].text": [expect.any(String)],
    });
  });

  it("reads without judging while rows are added or removed", () => {
    const submission = parseWithZod(
      posted([
        ["name", ""],
        ["buttonCount", "0"],
      ]),
      { schema: TemplateFieldsSchema },
    );
    expect(submission.status).toBe("success");
  });

  it("reads the intent and account, and turns the domain's problems into Conform's errors", () => {
    const post = parseWithZod(
      posted([
        ["intent", "add-button:URL"],
        ["accountId", ""],
      ]),
      { schema: TemplatePostSchema },
    );
    expect(post.status === "success" && post.value).toEqual({ intent: "add-button:URL" });
    expect(problemErrors({ form: "Connect an account.", name: "Taken." })).toEqual({
      formErrors: ["Connect an account."],
      fieldErrors: { name: ["Taken."] },
    });
  });

  it("reads the list's filters from a link, ignoring unknown values", () => {
    const filters = (query: Record<string, string>) => {
      const submission = parseWithZod(new URLSearchParams(query), { schema: TemplateFiltersSchema });
      return submission.status === "success" ? submission.value : submission.error;
    };
    expect(filters({ q: `  order ${"x".repeat(200)}`, status: "approved", type: "nonsense", language: "sw" })).toEqual({
      q: `order ${"x".repeat(94)}`,
      status: "approved",
      type: undefined,
      language: "sw",
    });
    expect(filters({ q: "   ", type: "MARKETING" })).toEqual({ q: undefined, status: undefined, type: "MARKETING", language: undefined });
  });

  it("knows the list's three buttons and nothing else", () => {
    const copy = parseWithZod(
      posted([
        ["intent", "copy"],
        ["template", "t-1"],
      ]),
      { schema: TemplateListActionSchema },
    );
    expect(copy.status === "success" && copy.value).toEqual({ intent: "copy", template: "t-1" });
    expect(parseWithZod(posted([["intent", "publish"]]), { schema: TemplateListActionSchema }).status).toBe("error");
    expect(parseWithZod(posted([]), { schema: TemplateListActionSchema }).status).toBe("error");
  });
});
