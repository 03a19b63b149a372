import { describe, expect, it } from "vitest";
import { inputFromMeta, renderTemplate, templateProblems, toMetaComponents, type TemplateInput } from "./templates";
import { applyRowIntent, readTemplateForm } from "./template-form";

const base: TemplateInput = {
  name: "order_update",
  category: "UTILITY",
  language: "en",
  headerFormat: "NONE",
  body: "Habari {{1}}, your order {{2}} ships today.",
  bodyExamples: ["Amina", "KE-1042"],
  buttons: [],
};
const problems = (change: Partial<TemplateInput>) => templateProblems({ ...base, ...change });

describe("Meta's template rules, checked before Meta", () => {
  it("accepts a well-formed template", () => {
    expect(problems({})).toEqual({});
  });

  it("names: lowercase letters, digits and underscores", () => {
    expect(problems({ name: "Order Update" }).name).toMatch(/lowercase letters/);
    expect(problems({ name: "" }).name).toBe("Enter a template name.");
    expect(problems({ name: "a".repeat(513) }).name).toMatch(/512/);
  });

  it("placeholders: numbered from 1 without gaps, never at either end, never side by side, each with an example", () => {
    expect(problems({ body: "Hi {{1}} and {{3}} today", bodyExamples: ["a", "b", "c"] }).body).toMatch(/without gaps/);
    expect(problems({ body: "{{1}}, your order ships", bodyExamples: ["a"] }).body).toMatch(/cannot start with a variable/);
    expect(problems({ body: "Your order is {{1}}", bodyExamples: ["a"] }).body).toMatch(/cannot end with a variable/);
    expect(problems({ body: "Your order is {{1}}.", bodyExamples: ["a"] }).body).toMatch(/cannot end with a variable/);
    expect(problems({ body: "Hi {{1}} {{2}} there", bodyExamples: ["a", "b"] }).body).toMatch(/next to each other/);
    expect(problems({ body: "Hi {{name}} there" }).body).toMatch(/numbers in double braces/);
    expect(problems({ bodyExamples: ["Amina"] })).toEqual({ "bodyExamples[1]": expect.stringMatching(/example for \{\{2\}\}/) });
    expect(problems({ bodyExamples: ["Amina", "two\nlines"] })["bodyExamples[1]"]).toMatch(/line breaks/);
  });

  it("lengths: body 1,024, header 60 with one variable, footer 60 without variables", () => {
    expect(problems({ body: `Hi ${"x".repeat(1030)}`, bodyExamples: [] }).body).toMatch(/1,024/);
    expect(problems({ headerFormat: "TEXT", headerText: "x".repeat(61) }).headerText).toMatch(/60/);
    expect(problems({ headerFormat: "TEXT", headerText: "Order {{1}} and {{2}}" }).headerText).toMatch(/one variable/);
    expect(problems({ headerFormat: "TEXT", headerText: "Order {{1}}" }).headerExample).toMatch(/example/);
    expect(problems({ footer: "Reply {{1}}" }).footer).toMatch(/cannot have variables/);
  });

  it("buttons: counts, kinds, grouping, URL form, phone form", () => {
    const qr = (text: string) => ({ type: "QUICK_REPLY" as const, text });
    expect(problems({ buttons: Array.from({ length: 11 }, (_, i) => qr(`Option ${i}`)) }).buttons).toMatch(/At most 10/);
    const url = { type: "URL" as const, text: "Track", url: "https://nyota.co.ke/t" };
    expect(problems({ buttons: [url, { ...url, text: "B" }, { ...url, text: "C" }] }).buttons).toMatch(/2 website/);
    expect(problems({ buttons: [qr("Yes"), url, qr("No")] }).buttons).toMatch(/together/);
    expect(problems({ buttons: [qr("Yes"), qr("yes")] })["buttons[1].text"]).toMatch(/same text/);
    expect(problems({ buttons: [{ ...url, url: "https://nyota.co.ke/{{1}}/x" }] })["buttons[0].url"]).toMatch(/at its end/);
    expect(problems({ buttons: [{ ...url, url: "https://nyota.co.ke/t/{{1}}" }] })["buttons[0].example"]).toMatch(/example/);
    expect(problems({ buttons: [{ ...url, url: "nyota" }] })["buttons[0].url"]).toMatch(/full address/);
    expect(problems({ buttons: [{ type: "PHONE_NUMBER", text: "Call", phone: "0711000001" }] })["buttons[0].phone"]).toMatch(
      /international/,
    );
    expect(problems({ buttons: [{ type: "COPY_CODE", text: "", example: "SAVE10" }] }).buttons).toMatch(/Marketing templates only/);
    expect(
      problems({ category: "MARKETING", buttons: [{ type: "COPY_CODE", text: "", example: "SAVE 10" }] })["buttons[0].example"],
    ).toMatch(/spaces/);
  });

  it("authentication templates take Meta's fixed shape", () => {
    const otp: TemplateInput = {
      ...base,
      category: "AUTHENTICATION",
      body: undefined,
      bodyExamples: [],
      otpType: "COPY_CODE",
      otpButtonText: "Copy code",
    };
    expect(templateProblems(otp)).toEqual({});
    expect(templateProblems({ ...otp, codeExpirationMinutes: 91 }).codeExpirationMinutes).toMatch(/1 to 90/);
    expect(templateProblems({ ...otp, otpType: "ONE_TAP" }).packageName).toMatch(/package name/);
    expect(toMetaComponents({ ...otp, addSecurityRecommendation: true, codeExpirationMinutes: 10 })).toEqual([
      { type: "BODY", add_security_recommendation: true },
      { type: "FOOTER", code_expiration_minutes: 10 },
      { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE", text: "Copy code" }] },
    ]);
  });
});

describe("Meta's components", () => {
  const full: TemplateInput = {
    ...base,
    headerFormat: "TEXT",
    headerText: "Order {{1}}",
    headerExample: "KE-1042",
    footer: "Nyota Sacco",
    buttons: [
      { type: "URL", text: "Track", url: "https://nyota.co.ke/t/{{1}}", example: "KE-1042" },
      { type: "PHONE_NUMBER", text: "Call us", phone: "+254 711 000 001" },
    ],
  };

  it("are Meta's create shape, with every example", () => {
    expect(toMetaComponents(full)).toEqual([
      { type: "HEADER", format: "TEXT", text: "Order {{1}}", example: { header_text: ["KE-1042"] } },
      { type: "BODY", text: base.body, example: { body_text: [["Amina", "KE-1042"]] } },
      { type: "FOOTER", text: "Nyota Sacco" },
      {
        type: "BUTTONS",
        buttons: [
          { type: "URL", text: "Track", url: "https://nyota.co.ke/t/{{1}}", example: ["KE-1042"] },
          { type: "PHONE_NUMBER", text: "Call us", phone_number: "+254711000001" },
        ],
      },
    ]);
  });

  it("read back into the same form values, and render with values put in", () => {
    const back = inputFromMeta({ name: full.name, category: full.category, language: full.language, components: toMetaComponents(full) });
    expect(templateProblems(back)).toEqual({});
    expect(toMetaComponents(back)).toEqual(toMetaComponents(full));
    const shown = renderTemplate(back, { "body.1": "Brian", "button.0": "XY-9" });
    expect(shown.header).toBe("Order KE-1042");
    expect(shown.body).toBe("Habari Brian, your order KE-1042 ships today.");
    expect(shown.buttons[0]).toEqual({ type: "URL", text: "Track", detail: "https://nyota.co.ke/t/XY-9" });
  });
});

describe("the form", () => {
  it("reads fields, button rows and examples, and adds or removes rows", () => {
    const form = new FormData();
    form.set("name", " order_update ");
    form.set("category", "MARKETING");
    form.set("language", "xx");
    form.set("body", "Hi {{1}} there");
    form.append("bodyExamples", "Amina");
    form.set("buttonCount", "2");
    form.set("buttons[0].type", "QUICK_REPLY");
    form.set("buttons[0].text", "Yes");
    form.set("buttons[1].type", "NOPE");
    const input = readTemplateForm(form);
    expect(input).toMatchObject({ name: "order_update", category: "MARKETING", language: "en", bodyExamples: ["Amina"] });
    expect(input.buttons).toEqual([{ type: "QUICK_REPLY", text: "Yes", url: undefined, example: undefined, phone: undefined }]);
    expect(applyRowIntent(input, "add-button:URL")!.buttons.map((b) => b.type)).toEqual(["QUICK_REPLY", "URL"]);
    expect(applyRowIntent(input, "remove-button:0")!.buttons).toEqual([]);
    expect(applyRowIntent(input, "submit")).toBeUndefined();
  });
});
