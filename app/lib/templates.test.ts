import { describe, expect, it } from "vitest";
import {
  contentMatchesType,
  inputFromMeta,
  MEDIA_SAMPLES,
  renderTemplate,
  templateProblems,
  toMetaComponents,
  type TemplateInput,
} from "./templates";
import { applyRowIntent, chosenFile, readTemplateForm } from "./template-form";

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

  it("catalog and multi-product buttons: Marketing, alone, no header for a catalog, a text header for an MPM (decision 146)", () => {
    const catalog = { category: "MARKETING" as const, buttons: [{ type: "CATALOG" as const, text: "" }] };
    const mpm = {
      category: "MARKETING" as const,
      headerFormat: "TEXT" as const,
      headerText: "New arrivals",
      buttons: [{ type: "MPM" as const, text: "" }],
    };
    expect(problems(catalog)).toEqual({});
    expect(problems(mpm)).toEqual({});
    expect(problems({ ...catalog, category: "UTILITY" }).buttons).toMatch(/Marketing templates only/);
    expect(problems({ ...mpm, buttons: [...mpm.buttons, { type: "QUICK_REPLY", text: "Stop" }] }).buttons).toMatch(/only button/);
    expect(problems({ ...catalog, headerFormat: "TEXT", headerText: "Hi" }).headerFormat).toMatch(/no header/);
    expect(problems({ ...mpm, headerFormat: "NONE" }).headerFormat).toMatch(/text header/);
    expect(toMetaComponents({ ...base, ...mpm }).at(-1)).toEqual({ type: "BUTTONS", buttons: [{ type: "MPM", text: "View items" }] });
    const back = inputFromMeta({ name: "x", category: "MARKETING", language: "sw", components: toMetaComponents({ ...base, ...catalog }) });
    expect(back.buttons).toEqual([expect.objectContaining({ type: "CATALOG" })]);
    expect(renderTemplate(back).buttons[0]!.text).toBe("Tazama katalogi");
    expect(applyRowIntent({ ...base }, "add-button:MPM")!.buttons.map((b) => b.type)).toEqual(["MPM"]);
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

describe("media headers", () => {
  const png = { fileName: "poster.png", contentType: "image/png", size: 40_000 };
  const media = (change: Partial<TemplateInput>) =>
    problems({ category: "MARKETING", headerFormat: "IMAGE", headerSample: png, ...change });

  it("need a sample of the header's type within Jumbe's size (image 5 MB, video 16 MB, document a 16 MB PDF)", () => {
    expect(media({})).toEqual({});
    expect(media({ headerSample: undefined }).headerSample).toBe(
      "Choose a sample image (JPEG or PNG, up to 5 MB.): Meta reviews media headers with a sample.",
    );
    expect(media({ headerSample: { ...png, contentType: "image/gif" } }).headerSample).toBe(
      "An image header's sample must be JPEG or PNG; this file is image/gif.",
    );
    expect(media({ headerSample: { ...png, size: 5 * 1024 * 1024 + 1 } }).headerSample).toBe(
      "The file is 5 MB; an image sample can be up to 5 MB.",
    );
    expect(media({ headerSample: { ...png, size: 0 } }).headerSample).toBe("The file is empty. Choose another.");
    expect(media({ headerFormat: "VIDEO", headerSample: { fileName: "a.mp4", contentType: "video/mp4", size: 16 * 1024 * 1024 } })).toEqual(
      {},
    );
    expect(
      media({ headerFormat: "VIDEO", headerSample: { fileName: "a.mp4", contentType: "video/mp4", size: 16 * 1024 * 1024 + 1 } })
        .headerSample,
    ).toMatch(/^The file is 16 MB; a video sample can be up to 16 MB\.$/);
    expect(media({ headerFormat: "DOCUMENT", headerSample: png }).headerSample).toBe(
      "A document header's sample must be PDF; this file is image/png.",
    );
    expect(MEDIA_SAMPLES.DOCUMENT.maxBytes).toBe(16 * 1024 * 1024);
    // Authentication templates take none.
    expect(problems({ category: "AUTHENTICATION", headerFormat: "IMAGE", otpButtonText: "Copy code" }).form).toMatch(
      /^Authentication templates take no media header/,
    );
  });

  it("are Meta's HEADER with the handle at submission, read back from Meta with its example URL, and previewed as media", () => {
    const input: TemplateInput = {
      ...base,
      category: "MARKETING",
      headerFormat: "IMAGE",
      headerSample: { ...png, url: "/templates/x/sample" },
    };
    expect(toMetaComponents(input)[0]).toEqual({ type: "HEADER", format: "IMAGE" });
    expect(toMetaComponents(input, "4::aW1hZ2U=:ARb")[0]).toEqual({
      type: "HEADER",
      format: "IMAGE",
      example: { header_handle: ["4::aW1hZ2U=:ARb"] },
    });
    const fromMeta = inputFromMeta({
      name: "promo",
      category: "MARKETING",
      language: "en",
      components: [
        { type: "HEADER", format: "VIDEO", example: { header_handle: ["https://scontent.whatsapp.net/v/clip.mp4"] } },
        { type: "BODY", text: "New!" },
      ],
    });
    expect(fromMeta).toMatchObject({ headerFormat: "VIDEO", headerExampleUrl: "https://scontent.whatsapp.net/v/clip.mp4" });
    expect(renderTemplate(fromMeta).media).toEqual({ format: "VIDEO", src: undefined, fileName: undefined });
    expect(renderTemplate(input).media).toEqual({ format: "IMAGE", src: "/templates/x/sample", fileName: "poster.png" });
    expect(renderTemplate(input).header).toBeUndefined();
  });

  it("check a file's first bytes against its type", () => {
    expect(contentMatchesType("image/png", Buffer.from("89504e470d0a1a0a00", "hex"))).toBe(true);
    expect(contentMatchesType("image/png", Buffer.from("%PDF-1.4"))).toBe(false);
    expect(contentMatchesType("image/jpeg", Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe(true);
    expect(contentMatchesType("application/pdf", Buffer.from("%PDF-1.7"))).toBe(true);
    expect(contentMatchesType("video/mp4", Buffer.from("\0\0\0\x18ftypmp42", "latin1"))).toBe(true);
    expect(contentMatchesType("image/gif", Buffer.from("GIF89a"))).toBe(false);
  });

  it("are read from the form: a chosen file, the kept sample's hidden fields, or nothing", () => {
    const form = new FormData();
    form.set("name", "promo");
    form.set("category", "MARKETING");
    form.set("headerFormat", "IMAGE");
    form.set("body", "New!");
    form.set("headerFile", new File([new Uint8Array(10)], "poster.png", { type: "image/png" }));
    expect(readTemplateForm(form).headerSample).toEqual({ fileName: "poster.png", contentType: "image/png", size: 10 });
    // No file chosen: a browser sends an empty part; the kept sample stands.
    form.set("headerFile", new File([], "", { type: "application/octet-stream" }));
    expect(chosenFile(form)).toBeUndefined();
    expect(readTemplateForm(form).headerSample).toBeUndefined();
    form.set("headerSampleId", "0b9d6c4e-0000-4000-8000-000000000001");
    form.set("headerSampleName", "old.png");
    form.set("headerSampleType", "image/png");
    form.set("headerSampleSize", "1234");
    expect(readTemplateForm(form).headerSample).toEqual({
      id: "0b9d6c4e-0000-4000-8000-000000000001",
      fileName: "old.png",
      contentType: "image/png",
      size: 1234,
      url: undefined,
    });
    form.set("headerFormat", "TEXT");
    expect(readTemplateForm(form).headerSample).toBeUndefined();
  });
});
