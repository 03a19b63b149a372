import { randomBytes } from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Browser, Locator, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL, field, randomIp, signIn, signUpAndVerifyViaApi } from "./helpers";
import { connectWhatsApp, templateCell, templateRow, templatesTable, waitForTemplateStatus } from "./template-helpers";

// Message templates (issue 11), with scripts on and off: drafts without WhatsApp, Meta's rules under
// their fields, submission to the Meta sandbox and its reviewer's decision arriving by webhook, the
// view and delete dialogs, preview at each device width, copy, delete (here and at Meta), filters in
// the URL, accessibility, phone width, and other tenants' templates answering 404.

// Word for word from app/.server/domains/templates/manage.ts (TEMPLATE_MESSAGES.noAccount).
const NO_ACCOUNT =
  "Connect a WhatsApp Business account before submitting templates to Meta (WhatsApp Setup). You can save this template as a draft now.";
// The sandbox reviewer's rejection, as the webhook handler keeps it (reason code: Meta's words).
const REVIEWER_REJECTION = `INVALID_FORMAT: The sandbox's reviewer rejects every template whose name contains "reject".`;

interface ButtonSpec {
  type: "Quick reply" | "Visit website" | "Call phone number";
  text: string;
  url?: string;
  phone?: string;
}

interface TemplateSpec {
  name: string;
  type?: "Transactional (Utility)" | "Marketing (Marketing)";
  language?: "English" | "Swahili" | "French";
  header?: string;
  body: string;
  examples?: string[];
  footer?: string;
  buttons?: ButtonSpec[];
}

const tag = () => randomBytes(3).toString("hex");

interface SandboxTemplate {
  id: string;
  wabaId: string;
  name: string;
  status: string;
  components: { type: string; text?: string }[];
}

async function sandboxTemplates(request: APIRequestContext, name: string) {
  const response = await request.get("/sandbox/meta/control/templates");
  expect(response.ok()).toBe(true);
  return ((await response.json()) as SandboxTemplate[]).filter((t) => t.name === name);
}

async function signedIn(page: Page, request: APIRequestContext, businessName?: string) {
  const user = await signUpAndVerifyViaApi(request, businessName ? { businessName } : {});
  await signIn(page, user.email, user.password);
  return user;
}

const buttonRow = (page: Page, index: number, type: string) => page.getByRole("group", { name: `Button ${index + 1}: ${type}` });

/**
 * Fills /templates/new. The rows of buttons are added with the form's own buttons, which post the
 * form back (with or without scripts). Without scripts the header text and the example fields
 * appear once the form has been posted back ("Update example fields", or adding a row).
 */
async function fillTemplateForm(page: Page, javaScriptEnabled: boolean, spec: TemplateSpec) {
  await field(page, "Template name").fill(spec.name);
  await page.getByLabel("Type", { exact: true }).selectOption({ label: spec.type ?? "Transactional (Utility)" });
  await page.getByLabel("Language", { exact: true }).selectOption({ label: spec.language ?? "English" });
  if (spec.header) await page.getByLabel("Header (optional)").selectOption({ label: "Text" });
  await field(page, "Body").fill(spec.body);
  if (!javaScriptEnabled && (spec.header || spec.examples?.length))
    await page.getByRole("button", { name: "Update example fields" }).click();
  for (const [i, button] of (spec.buttons ?? []).entries()) {
    await page.getByRole("button", { name: button.type, exact: true }).click();
    await expect(buttonRow(page, i, button.type)).toBeVisible();
  }
  if (spec.header) await page.getByLabel("Header text").fill(spec.header);
  for (const [i, example] of (spec.examples ?? []).entries()) await field(page, `Example for {{${i + 1}}}`).fill(example);
  if (spec.footer) await page.getByLabel("Footer (optional)").fill(spec.footer);
  for (const [i, button] of (spec.buttons ?? []).entries()) {
    const row = buttonRow(page, i, button.type);
    await row.getByLabel("Button text").fill(button.text);
    if (button.url) await row.getByLabel("Website address").fill(button.url);
    if (button.phone) await row.getByLabel("Phone number").fill(button.phone);
  }
}

/** Creates a template through the form, as a draft or submitted; back on /templates with the toast. */
async function createTemplate(
  page: Page,
  javaScriptEnabled: boolean,
  spec: TemplateSpec,
  intent: "draft" | "submit",
  beforeSending?: () => Promise<void>,
) {
  await page.goto("/templates/new");
  await fillTemplateForm(page, javaScriptEnabled, spec);
  await beforeSending?.();
  await page.getByRole("button", { name: intent === "draft" ? "Save draft" : "Submit for approval" }).click();
  await expect(page).toHaveURL(/\/templates$/);
  const said = intent === "draft" ? `${spec.name} was saved as a draft.` : `${spec.name} was submitted to Meta for approval.`;
  await expect(page.getByRole("status").filter({ hasText: said })).toBeVisible();
}

const names = (page: Page) =>
  templatesTable(page)
    .getByRole("row")
    .locator("td:first-child a")
    .allInnerTexts()
    .then((all) => all.sort());

/** The template's id, from its View link (`?dialog=view&template=<id>`). */
async function templateId(page: Page, name: string) {
  const href = await templateRow(page, name)
    .getByRole("link", { name: `View ${name}` })
    .getAttribute("href");
  const id = new URLSearchParams(href!.split("?")[1]).get("template");
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  return id!;
}

/**
 * With scripts: clicks `submit` and answers the form's submit buttons as they were just after the
 * click (their text, "(busy)" when disabled), written down by the page before it was replaced (the
 * form posts as a document, and Playwright reads the page that follows).
 */
async function buttonsWhileSubmitting(page: Page, submit: Locator) {
  await page.evaluate(() =>
    document.addEventListener("submit", () =>
      // After forms.js's own handler, which marks the pressed button once the browser has read the form.
      setTimeout(() =>
        setTimeout(() => {
          const buttons = [...document.querySelectorAll<HTMLButtonElement>("form[aria-label=Template] button[type=submit]:not([hidden])")];
          sessionStorage.setItem("buttons", JSON.stringify(buttons.map((b) => `${b.textContent?.trim()}${b.disabled ? " (busy)" : ""}`)));
        }),
      ),
    ),
  );
  await submit.click();
  await page.waitForLoadState();
  return JSON.parse((await page.evaluate(() => sessionStorage.getItem("buttons"))) ?? "null") as string[] | null;
}

test("without WhatsApp connected a template cannot be submitted: the page says why, and it is saved as a draft", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  await signedIn(page, request);
  await page.goto("/templates");
  await expect(page.getByRole("heading", { name: "Message Templates" })).toBeVisible();
  await expect(page.getByText("No WhatsApp Business account is connected, so templates can be saved as drafts")).toBeVisible();
  await expect(templatesTable(page)).toContainText("No templates yet.");
  await expect(page.getByRole("button", { name: /Sync from Meta/ })).toHaveCount(0);

  await page.getByRole("link", { name: "Create template" }).click();
  await expect(page).toHaveURL(/\/templates\/new$/);
  const name = `delivery_notice_${tag()}`;
  const body = "Your parcel has left our Nairobi shop. Asante for shopping with us.";
  await fillTemplateForm(page, javaScriptEnabled, { name, body, footer: "Duka la Mama Njeri" });
  await page.getByRole("button", { name: "Submit for approval" }).click();
  await expect(page.getByRole("alert").filter({ hasText: NO_ACCOUNT })).toBeVisible();
  await expect(page).toHaveURL(/\/templates\/new$/);
  // What was typed is still there.
  await expect(field(page, "Template name")).toHaveValue(name);
  await expect(field(page, "Body")).toHaveValue(body);
  await expect(page.getByLabel("Footer (optional)")).toHaveValue("Duka la Mama Njeri");

  const saveDraft = page.getByRole("button", { name: "Save draft" });
  if (javaScriptEnabled)
    // Saving a draft is not submitting it: only the button pressed says it is working.
    expect(await buttonsWhileSubmitting(page, saveDraft)).toEqual(expect.arrayContaining(["Submit for approval", "Save draft (busy)"]));
  else await saveDraft.click();
  await expect(page).toHaveURL(/\/templates$/);
  await expect(page.getByRole("status").filter({ hasText: `${name} was saved as a draft.` })).toBeVisible();
  await expect(templateCell(page, name, "status")).toHaveText("draft");
  await expect(templateCell(page, name, "type")).toHaveText("Transactional (Utility)");
  await expect(templateCell(page, name, "submitted")).toHaveText("Not submitted");
  await expect(page.getByText("1 template: 0 approved, 0 pending, 0 rejected, 1 draft.")).toBeVisible();

  // The draft opens again with its content, and still cannot be submitted.
  await templateRow(page, name)
    .getByRole("link", { name: `View ${name}` })
    .click();
  const view = page.getByRole("dialog", { name });
  await expect(view).toBeVisible();
  await view.getByRole("link", { name: "Edit and submit" }).click();
  await expect(page.getByRole("heading", { name: `Edit ${name}` })).toBeVisible();
  await expect(field(page, "Body")).toHaveValue(body);
  await page.getByRole("button", { name: "Submit for approval" }).click();
  await expect(page.getByRole("alert").filter({ hasText: NO_ACCOUNT })).toBeVisible();
  await page.goto("/templates");
  await expect(templateCell(page, name, "status")).toHaveText("draft");
});

test("Meta's rules show under their fields with the typed values kept, and nothing is saved", async ({ page, request }) => {
  await signedIn(page, request);
  await page.goto("/templates/new");
  await field(page, "Template name").fill("Order Update!");
  await field(page, "Body").fill("{{1}}, your order is ready for collection.");
  await page.getByRole("button", { name: "Quick reply", exact: true }).click();
  await expect(buttonRow(page, 0, "Quick reply")).toBeVisible();
  await page.getByRole("button", { name: "Submit for approval" }).click();

  await expect(field(page, "Template name")).toHaveAccessibleDescription(
    /Use lowercase letters, numbers and underscores only, e\.g\. order_update\./,
  );
  await expect(field(page, "Template name")).toHaveAttribute("aria-invalid", "true");
  await expect(field(page, "Body")).toHaveAccessibleDescription(
    /The text cannot start with a variable: Meta rejects it\. Put some words before \{\{1\}\}\./,
  );
  await expect(buttonRow(page, 0, "Quick reply").getByLabel("Button text")).toHaveAccessibleDescription("Enter the button's text.");
  await expect(field(page, "Template name")).toHaveValue("Order Update!");
  await expect(field(page, "Body")).toHaveValue("{{1}}, your order is ready for collection.");
  await expect(page).toHaveURL(/\/templates\/new$/);

  // The name and body fixed, the example of {{1}} still missing.
  await field(page, "Template name").fill("order_update");
  await field(page, "Body").fill("Habari {{1}}, your order is ready for collection.");
  await buttonRow(page, 0, "Quick reply").getByLabel("Button text").fill("Nitakuja");
  await page.getByRole("button", { name: "Save draft" }).click();
  const example = field(page, "Example for {{1}}");
  await expect(example).toHaveAccessibleDescription("Add an example for {{1}}: Meta reviews templates with their examples.");
  await expect(field(page, "Template name")).not.toHaveAttribute("aria-invalid");
  await expect(field(page, "Template name")).toHaveValue("order_update");
  await expect(field(page, "Body")).toHaveValue("Habari {{1}}, your order is ready for collection.");
  await expect(buttonRow(page, 0, "Quick reply").getByLabel("Button text")).toHaveValue("Nitakuja");

  // A website button without a full address.
  await example.fill("Wanjiku");
  await page.getByRole("button", { name: "Visit website", exact: true }).click();
  const website = buttonRow(page, 1, "Visit website");
  await website.getByLabel("Button text").fill("Track order");
  await website.getByLabel("Website address").fill("duka");
  await page.getByRole("button", { name: "Save draft" }).click();
  await expect(website.getByLabel("Website address")).toHaveAccessibleDescription(
    /Enter a full address, such as https:\/\/example\.co\.ke\/orders\./,
  );
  await expect(field(page, "Example for {{1}}")).toHaveValue("Wanjiku");
  await expect(website.getByLabel("Button text")).toHaveValue("Track order");

  await page.goto("/templates");
  await expect(templatesTable(page)).toContainText("No templates yet.");
  await expect(page.getByText("0 templates: 0 approved, 0 pending, 0 rejected, 0 drafts.")).toBeVisible();
});

test("a Transactional template is submitted, pending, approved by Meta, viewed, copied, and deleted here and at Meta", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  await signedIn(page, request);
  const wabaId = await connectWhatsApp(page, "Duka la Mama Njeri");
  const name = `order_ready_${tag()}`;
  await createTemplate(
    page,
    javaScriptEnabled,
    {
      name,
      type: "Transactional (Utility)",
      header: "Order update",
      body: "Habari {{1}}, your order {{2}} is ready for collection at our Moi Avenue shop.",
      examples: ["Wanjiku", "ORD-1001"],
      footer: "Duka la Mama Njeri",
      buttons: [
        { type: "Quick reply", text: "I will come today" },
        { type: "Visit website", text: "Track order", url: "https://duka.co.ke/orders" },
      ],
    },
    "submit",
    async () => {
      // With scripts the form's preview has followed the typing; without, it shows the form as last posted back.
      const preview = page.getByRole("complementary", { name: "Preview" }).getByRole("figure");
      if (javaScriptEnabled) {
        await expect(preview).toContainText("Order update");
        await expect(preview).toContainText("Habari Wanjiku, your order ORD-1001 is ready for collection at our Moi Avenue shop.");
        await expect(preview).toContainText("Duka la Mama Njeri");
        await expect(preview.getByRole("listitem")).toHaveText(["I will come today", /^Track order\s*\(https:\/\/duka\.co\.ke\/orders\)$/]);
      } else {
        await expect(preview).toContainText("Habari {{1}}, your order {{2}} is ready for collection at our Moi Avenue shop.");
        await expect(preview).not.toContainText("Duka la Mama Njeri");
      }
    },
  );
  await expect(templateCell(page, name, "status")).toHaveText("pending");
  await expect(templateCell(page, name, "type")).toHaveText("Transactional (Utility)");
  await expect(templateCell(page, name, "language")).toHaveText("English");
  await expect(templateCell(page, name, "submitted")).not.toHaveText("Not submitted");
  // At Meta: the template as built from the form.
  const [atMeta] = await sandboxTemplates(request, name);
  expect(atMeta).toMatchObject({ wabaId, components: expect.arrayContaining([expect.objectContaining({ type: "BODY" })]) });
  expect(atMeta!.components).toEqual([
    { type: "HEADER", format: "TEXT", text: "Order update" },
    {
      type: "BODY",
      text: "Habari {{1}}, your order {{2}} is ready for collection at our Moi Avenue shop.",
      example: { body_text: [["Wanjiku", "ORD-1001"]] },
    },
    { type: "FOOTER", text: "Duka la Mama Njeri" },
    {
      type: "BUTTONS",
      buttons: [
        { type: "QUICK_REPLY", text: "I will come today" },
        { type: "URL", text: "Track order", url: "https://duka.co.ke/orders" },
      ],
    },
  ]);

  // The sandbox's reviewer approves it and tells Jumbe by webhook.
  await waitForTemplateStatus(page, name, "approved");
  expect((await sandboxTemplates(request, name))[0]!.status).toBe("APPROVED");

  // View: a dialog in the URL (rendered by the server without scripts).
  await templateRow(page, name)
    .getByRole("link", { name: `View ${name}` })
    .click();
  await expect(page).toHaveURL(/\?dialog=view&template=[0-9a-f-]{36}$/);
  const view = page.getByRole("dialog", { name });
  await expect(view).toBeVisible();
  await expect(view).toContainText("Transactional (Utility) · English");
  await expect(view).toContainText("approved");
  const bubble = view.getByRole("figure", { name: "Message preview, mobile width" });
  await expect(bubble).toContainText("Order update");
  await expect(bubble).toContainText("Habari Wanjiku, your order ORD-1001 is ready for collection at our Moi Avenue shop.");
  await expect(bubble).toContainText("Duka la Mama Njeri");
  await expect(bubble.getByRole("listitem")).toHaveText(["I will come today", /^Track order\s*\(https:\/\/duka\.co\.ke\/orders\)$/]);
  // An approved template is not edited here.
  await expect(view.getByRole("link", { name: /^Edit and/ })).toHaveCount(0);
  await view.getByRole("link", { name: "Close" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(page).not.toHaveURL(/dialog=/);

  // Copy: a new draft with a fresh name, the same content.
  await templateRow(page, name)
    .getByRole("button", { name: `Copy ${name}` })
    .click();
  await expect(page).toHaveURL(/\/templates\/[0-9a-f-]{36}\/edit$/);
  await expect(page.getByRole("status").filter({ hasText: `Copied as ${name}_copy. Change it and submit it.` })).toBeVisible();
  await expect(page.getByRole("heading", { name: `Edit ${name}_copy` })).toBeVisible();
  await expect(page.getByRole("heading", { name: `Edit ${name}_copy` })).toContainText("draft");
  await expect(field(page, "Template name")).toHaveValue(`${name}_copy`);
  await expect(field(page, "Body")).toHaveValue("Habari {{1}}, your order {{2}} is ready for collection at our Moi Avenue shop.");
  await expect(buttonRow(page, 1, "Visit website").getByLabel("Website address")).toHaveValue("https://duka.co.ke/orders");
  await page.goto("/templates");
  await expect(templateCell(page, `${name}_copy`, "status")).toHaveText("draft");
  await expect(templateCell(page, name, "status")).toHaveText("approved");
  // A second copy of either gets the next free name.
  await templateRow(page, `${name}_copy`)
    .getByRole("button", { name: `Copy ${name}_copy` })
    .click();
  await expect(page.getByRole("heading", { name: `Edit ${name}_copy_2` })).toBeVisible();
  await page.goto("/templates");
  expect(await names(page)).toEqual([name, `${name}_copy`, `${name}_copy_2`]);
  expect(await sandboxTemplates(request, `${name}_copy`)).toEqual([]);

  // Delete asks first; Cancel changes nothing.
  const askToDelete = async () => {
    await templateRow(page, name)
      .getByRole("link", { name: `Delete ${name}` })
      .click();
    await expect(page).toHaveURL(/\?dialog=delete&template=[0-9a-f-]{36}$/);
    const ask = page.getByRole("dialog", { name: `Delete ${name}?` });
    await expect(ask).toBeVisible();
    await expect(ask).toContainText("It is deleted at Meta too, and Meta keeps its name from being reused for 30 days.");
    return ask;
  };
  // With scripts the dialog is modal (the page behind is inert, Escape closes it); without, an open <dialog> the server drew.
  let asked = await askToDelete();
  expect(await asked.evaluate((dialog) => dialog.matches(":modal"))).toBe(javaScriptEnabled);
  if (javaScriptEnabled) {
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page).not.toHaveURL(/dialog=/);
    asked = await askToDelete();
  }
  await asked.getByRole("link", { name: "Cancel" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await page.goto("/templates");
  await expect(templateCell(page, name, "status")).toHaveText("approved");
  expect(await sandboxTemplates(request, name)).toHaveLength(1);
  await page.goto("/sandbox/meta");
  const consoleRows = page.getByRole("region", { name: "Message templates table" }).getByRole("row").filter({ hasText: name });
  await expect(consoleRows).toHaveCount(1);
  await page.goto("/templates");

  await (await askToDelete()).getByRole("button", { name: "Delete" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Template deleted here and at Meta." })).toBeVisible();
  await expect(page).toHaveURL(/\/templates$/);
  await expect(templateRow(page, name)).toHaveCount(0);
  expect(await names(page)).toEqual([`${name}_copy`, `${name}_copy_2`]);
  expect(await sandboxTemplates(request, name)).toEqual([]);
  // And the sandbox console no longer lists it (it listed it before: see consoleRows above).
  await page.goto("/sandbox/meta");
  await expect(page.getByRole("heading", { name: "Meta sandbox", level: 1 })).toBeVisible();
  await expect(consoleRows).toHaveCount(0);

  // A draft is only removed here.
  await page.goto("/templates");
  await templateRow(page, `${name}_copy_2`)
    .getByRole("link", { name: `Delete ${name}_copy_2` })
    .click();
  const draft = page.getByRole("dialog", { name: `Delete ${name}_copy_2?` });
  await expect(draft).toContainText("The draft is removed.");
  await draft.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Template deleted." })).toBeVisible();
  expect(await names(page)).toEqual([`${name}_copy`]);
});

test("a template Meta rejects shows the reason, and is edited and resubmitted", async ({ page, request, javaScriptEnabled }) => {
  await signedIn(page, request);
  await connectWhatsApp(page, "Duka la Mama Njeri");
  const name = `points_reject_${tag()}`;
  await createTemplate(
    page,
    javaScriptEnabled,
    { name, body: "Habari {{1}}, your points balance has been updated.", examples: ["Wanjiku"] },
    "submit",
  );
  await waitForTemplateStatus(page, name, "rejected");
  await expect(templateCell(page, name, "name")).toContainText(REVIEWER_REJECTION);

  await templateRow(page, name)
    .getByRole("link", { name: `View ${name}` })
    .click();
  const view = page.getByRole("dialog", { name });
  await expect(view).toContainText(`Rejected: ${REVIEWER_REJECTION}`);
  await view.getByRole("link", { name: "Edit and resubmit" }).click();
  await expect(page).toHaveURL(/\/templates\/[0-9a-f-]{36}\/edit$/);
  await expect(page.getByText(`Meta rejected it: ${REVIEWER_REJECTION}. Change it and submit it again.`)).toBeVisible();
  // Meta keeps a submitted template's name, type and language.
  await expect(field(page, "Template name")).toHaveAttribute("readonly", "");
  await expect(page.getByLabel("Type", { exact: true })).toBeDisabled();
  const body = "Habari {{1}}, you have new points to spend at our shop.";
  await field(page, "Body").fill(body);
  await field(page, "Example for {{1}}").fill("Otieno");
  await page.getByRole("button", { name: "Submit for approval" }).click();
  await expect(page).toHaveURL(/\/templates$/);
  await expect(page.getByRole("status").filter({ hasText: `${name} was submitted to Meta for approval.` })).toBeVisible();
  // At Meta the same template has the new content.
  const [atMeta] = await sandboxTemplates(request, name);
  expect(atMeta!.components.find((c) => c.type === "BODY")).toMatchObject({ text: body, example: { body_text: [["Otieno"]] } });
  // Pending again, the old reason gone (the page was drawn right after the resubmission, well before the review).
  await expect(templateCell(page, name, "status")).toHaveText("pending");
  await expect(templateCell(page, name, "name")).toHaveText(name);
  // The reviewer rejects the name again; approving it by hand in the sandbox's console reaches Jumbe too.
  await waitForTemplateStatus(page, name, "rejected");
  const approved = await request.post(`/sandbox/meta/control/templates/${atMeta!.id}/status`, { data: { event: "APPROVED" } });
  expect(approved.ok(), await approved.text()).toBe(true);
  await waitForTemplateStatus(page, name, "approved");
  await expect(templateCell(page, name, "name")).toHaveText(name);
});

test("preview at each device width shows the values given, the header, footer and buttons", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  await signedIn(page, request);
  const name = `order_ready_${tag()}`;
  await createTemplate(
    page,
    javaScriptEnabled,
    {
      name,
      header: "Order update",
      body: "Habari {{1}}, your order {{2}} is ready for collection.",
      examples: ["Wanjiku", "ORD-1001"],
      footer: "Duka la Mama Njeri",
      buttons: [
        { type: "Quick reply", text: "I will come today" },
        { type: "Call phone number", text: "Call the shop", phone: "+254711000001" },
      ],
    },
    "draft",
  );
  // From the view dialog.
  await templateRow(page, name)
    .getByRole("link", { name: `View ${name}` })
    .click();
  await page.getByRole("dialog", { name }).getByRole("link", { name: "Preview with your values" }).click();
  await expect(page).toHaveURL(/\/preview\?template=[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { name: "Message Preview" })).toBeVisible();
  const id = new URL(page.url()).searchParams.get("template")!;
  await expect(page.getByLabel("Template", { exact: true })).toHaveValue(id);

  const figure = page.getByRole("figure", { name: /^Message preview, \w+ width$/ });
  const frame = page.locator("[data-device]").filter({ has: figure });
  // The examples until values are given.
  await expect(figure).toContainText("Habari Wanjiku, your order ORD-1001 is ready for collection.");
  await expect(frame).toHaveAttribute("data-device", "mobile");

  await field(page, "Body {{1}}").fill("Otieno");
  await field(page, "Body {{2}}").fill("A-77");
  const filled = "Habari Otieno, your order A-77 is ready for collection.";
  if (javaScriptEnabled) {
    // Follows the typing (the server draws each preview, live.js puts it in place); the address stays.
    await expect(figure).toContainText(filled);
    await expect(page).not.toHaveURL(/body\.1=/);
  } else await expect(figure).toContainText("Habari Wanjiku, your order ORD-1001 is ready for collection.");

  const widths: Record<string, number> = {};
  for (const device of ["Tablet", "Desktop", "Mobile"] as const) {
    await page
      .locator("label")
      .filter({ hasText: new RegExp(`^\\s*${device}\\s*$`) })
      .click();
    if (!javaScriptEnabled) await page.getByRole("button", { name: "Show preview" }).click();
    const value = device.toLowerCase();
    await expect(frame).toHaveAttribute("data-device", value);
    await expect(figure).toHaveAccessibleName(`Message preview, ${value} width`);
    if (!javaScriptEnabled) await expect(page).toHaveURL(new RegExp(`[?&]device=${value}(&|$)`));
    await expect(page.getByRole("radio", { name: device })).toBeChecked();
    await expect(figure).toContainText("Order update");
    await expect(figure).toContainText(filled);
    await expect(figure).toContainText("Duka la Mama Njeri");
    await expect(figure.getByRole("listitem")).toHaveText(["I will come today", /^Call the shop\s*\(\+254711000001\)$/]);
    // The values stay in their fields.
    await expect(field(page, "Body {{1}}")).toHaveValue("Otieno");
    widths[value] = (await frame.boundingBox())!.width;
    expect(await frame.evaluate((el) => getComputedStyle(el).maxWidth)).toBe(
      `${{ mobile: 360, tablet: 600, desktop: 900 }[value as "mobile"]}px`,
    );
  }
  expect(widths.mobile).toBe(360);
  expect(widths.tablet).toBeGreaterThan(widths.mobile!);
  expect(widths.desktop).toBeGreaterThan(widths.tablet!);

  // The URL carries the preview: opened afresh it shows the same.
  await page.goto(`/preview?template=${id}&body.1=Achieng&device=tablet`);
  await expect(frame).toHaveAttribute("data-device", "tablet");
  await expect(figure).toContainText("Habari Achieng, your order ORD-1001 is ready for collection.");

  // Another template has other variables: choosing it loads its page (with JavaScript at once).
  const other = `pickup_note_${tag()}`;
  await createTemplate(
    page,
    javaScriptEnabled,
    { name: other, body: "Karibu {{1}}! Your parcel waits at the counter.", examples: ["Baraka"] },
    "draft",
  );
  await page.goto(`/preview?template=${id}`);
  await page.getByLabel("Template", { exact: true }).selectOption({ label: `${other} (English) · draft` });
  if (!javaScriptEnabled) await page.getByRole("button", { name: "Show preview" }).click();
  await expect(page).toHaveURL(/[?&]template=[0-9a-f-]{36}/);
  expect(new URL(page.url()).searchParams.get("template")).not.toBe(id);
  await expect(figure).toContainText("Karibu Baraka! Your parcel waits at the counter.");
  await expect(field(page, "Body {{1}}")).toHaveValue("");
  await expect(page.getByLabel("Body {{2}}")).toHaveCount(0);
});

test("filters and search in the URL narrow the table", async ({ page, request }) => {
  await signedIn(page, request);
  const wabaId = await connectWhatsApp(page, "Duka la Mama Njeri");
  const t = tag();
  const made = [
    { name: `karibu_offer_${t}`, language: "sw", category: "MARKETING" },
    { name: `receipt_${t}`, language: "en", category: "UTILITY" },
    { name: `rappel_${t}`, language: "fr", category: "UTILITY", status: "PAUSED" },
  ];
  // Made in Meta's Business Manager, brought in by Sync from Meta.
  for (const template of made) {
    const response = await request.post("/sandbox/meta/control/templates", { data: { wabaId, ...template } });
    expect(response.status(), await response.text()).toBe(201);
  }
  await page.goto("/templates");
  await page.getByRole("button", { name: "Sync from Meta" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Synced from Meta: 3 imported, 0 updated, 0 removed." })).toBeVisible();
  await page.goto("/templates");
  expect(await names(page)).toEqual([`karibu_offer_${t}`, `rappel_${t}`, `receipt_${t}`]);

  const filters = page.getByRole("form", { name: "Filters" });
  await filters.getByLabel("Type").selectOption({ label: "Marketing (Marketing)" });
  await filters.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/[?&]type=MARKETING(&|$)/);
  await expect.poll(() => names(page)).toEqual([`karibu_offer_${t}`]);
  await expect(templateCell(page, `karibu_offer_${t}`, "language")).toHaveText("Swahili");

  await filters.getByLabel("Type").selectOption({ label: "All types" });
  await filters.getByLabel("Status").selectOption({ label: "Paused" });
  await filters.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/[?&]status=paused(&|$)/);
  await expect.poll(() => names(page)).toEqual([`rappel_${t}`]);
  await expect(filters.getByLabel("Status")).toHaveValue("paused");

  await filters.getByLabel("Status").selectOption({ label: "All statuses" });
  await filters.getByLabel("Search").fill("receipt");
  await filters.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/[?&]q=receipt(&|$)/);
  await expect.poll(() => names(page)).toEqual([`receipt_${t}`]);

  // A shared link: the page opens filtered, its form showing the filters.
  await page.goto("/templates?language=fr&type=UTILITY");
  expect(await names(page)).toEqual([`rappel_${t}`]);
  await expect(filters.getByLabel("Language")).toHaveValue("fr");
  await page.goto("/templates?language=sw&type=UTILITY");
  await expect(templatesTable(page)).toContainText("No templates match these filters.");
  await page.goto(`/templates?q=${t}&status=approved`);
  expect(await names(page)).toEqual([`karibu_offer_${t}`, `receipt_${t}`]);
});

test("another organisation's template answers 404 on every page and to every action", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  await signedIn(page, request);
  const name = `private_notice_${tag()}`;
  await createTemplate(page, javaScriptEnabled, { name, body: "Our shop opens at nine tomorrow. Karibu!" }, "draft");
  const id = await templateId(page, name);

  const context = await browser.newContext({
    baseURL: BASE_URL,
    javaScriptEnabled,
    extraHTTPHeaders: { "X-Forwarded-For": randomIp() },
  });
  try {
    const other = await context.newPage();
    const user = await signUpAndVerifyViaApi(context.request);
    await signIn(other, user.email, user.password);
    for (const path of [
      `/templates/${id}/edit`,
      `/templates?dialog=view&template=${id}`,
      `/templates?dialog=delete&template=${id}`,
      `/preview?template=${id}`,
    ]) {
      const response = await other.goto(path);
      expect(response?.status(), path).toBe(404);
      await expect(other.getByText(name)).toHaveCount(0);
      if (path.startsWith("/preview"))
        await expect(other.getByRole("alert").filter({ hasText: "That template was not found. Choose one of yours below." })).toBeVisible();
    }
    for (const intent of ["copy", "delete"]) {
      const response = await context.request.post("/templates", {
        form: { intent, template: id, confirm: "yes" },
        headers: { Origin: BASE_URL },
      });
      expect(response.status(), intent).toBe(404);
    }
    const edit = await context.request.post(`/templates/${id}/edit`, {
      form: { intent: "draft", name: "taken_over", body: "Hello there from elsewhere.", category: "UTILITY", language: "en" },
      headers: { Origin: BASE_URL },
    });
    expect(edit.status()).toBe(404);
  } finally {
    await context.close();
  }
  // Still there, unchanged, and nothing was copied.
  await page.goto("/templates");
  expect(await names(page)).toEqual([name]);
});

/**
 * axe's serious and critical findings on the page as it is. Without scripts axe cannot run in the
 * page (it needs timers), so the page is loaded again, as the server sent it minus its scripts, in a
 * context of the same session where only axe runs.
 */
async function seriousViolations(page: Page, browser: Browser, javaScriptEnabled: boolean) {
  let target = page;
  const context = javaScriptEnabled
    ? undefined
    : await browser.newContext({
        baseURL: BASE_URL,
        viewport: page.viewportSize(),
        javaScriptEnabled: true,
        extraHTTPHeaders: { "X-Forwarded-For": randomIp() },
      });
  try {
    if (context) {
      await context.addCookies(await page.context().cookies());
      await context.route("**/*", async (route) => {
        const type = route.request().resourceType();
        if (type === "script") return route.abort();
        if (type !== "document") return route.continue();
        const response = await route.fetch();
        const html = (await response.text()).replace(/<script\b[^>]*>[\s\S]*?<\/script\s*>/gi, "");
        const headers = Object.fromEntries(Object.entries(response.headers()).filter(([key]) => !/^content-(encoding|length)$/i.test(key)));
        await route.fulfill({ status: response.status(), headers, body: html });
      });
      target = await context.newPage();
      // A GET of the same address: the toast cookie has been read already, dialogs are in the URL.
      const response = await target.goto(page.url());
      expect(response?.status()).toBe(200);
    }
    const results = await new AxeBuilder({ page: target }).analyze();
    expect(results.passes.length).toBeGreaterThan(10);
    return results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} [${v.impact}]: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  } finally {
    await context?.close();
  }
}

test("the templates pages, their dialogs and the preview have no serious accessibility violations", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  // Seven pages through axe, each in a fresh context: near the default minute on a loaded machine.
  test.slow();
  await signedIn(page, request);
  const name = `order_ready_${tag()}`;
  await createTemplate(
    page,
    javaScriptEnabled,
    {
      name,
      body: "Habari {{1}}, your order is ready for collection.",
      examples: ["Wanjiku"],
      buttons: [{ type: "Quick reply", text: "Asante" }],
    },
    "draft",
  );
  const id = await templateId(page, name);
  const pages: [string, Locator][] = [
    ["/templates", templatesTable(page)],
    [`/templates?dialog=view&template=${id}`, page.getByRole("dialog", { name })],
    [`/templates?dialog=delete&template=${id}`, page.getByRole("dialog", { name: `Delete ${name}?` })],
    ["/templates/new", page.getByRole("heading", { name: "Create template" })],
    [`/templates/${id}/edit`, page.getByRole("heading", { name: `Edit ${name}` })],
    [`/preview?template=${id}`, page.getByRole("figure", { name: "Message preview, mobile width" })],
  ];
  for (const [path, ready] of pages) {
    await page.goto(path);
    await expect(ready).toBeVisible();
    expect(await seriousViolations(page, browser, javaScriptEnabled), path).toEqual([]);
  }
  // The form with Meta's rules broken: errors under fields.
  await page.goto("/templates/new");
  await field(page, "Template name").fill("Bad Name");
  await page.getByRole("button", { name: "Save draft" }).click();
  await expect(field(page, "Template name")).toHaveAttribute("aria-invalid", "true");
  if (javaScriptEnabled) expect(await seriousViolations(page, browser, true), "/templates/new with errors").toEqual([]);
});

test.describe("at phone width", () => {
  test.use({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });

  async function noSidewaysScroll(page: Page, what: string) {
    const { scrollWidth, innerWidth } = await page.evaluate(() => ({
      scrollWidth: document.scrollingElement!.scrollWidth,
      // The screen's width: a phone zooms out to show a wider page, and window.innerWidth grows with it.
      innerWidth: document.documentElement.clientWidth,
    }));
    expect(scrollWidth, `${what} does not scroll sideways`).toBeLessThanOrEqual(innerWidth);
  }

  test("the templates pages, their dialogs and the preview fit a phone", async ({ page, request, javaScriptEnabled }) => {
    await signedIn(page, request);
    const name = `a_rather_long_template_name_for_a_phone_${tag()}`;
    await createTemplate(
      page,
      javaScriptEnabled,
      {
        name,
        header: "Order update",
        body: "Habari {{1}}, your order {{2}} is ready for collection at our Moi Avenue shop.",
        examples: ["Wanjiku", "ORD-1001"],
        footer: "Duka la Mama Njeri",
        buttons: [
          { type: "Quick reply", text: "I will come today" },
          { type: "Visit website", text: "Track order", url: "https://duka.co.ke/orders/track" },
        ],
      },
      "draft",
    );
    const id = await templateId(page, name);
    const pages: [string, Locator][] = [
      ["/templates", templatesTable(page)],
      [`/templates?dialog=view&template=${id}`, page.getByRole("dialog", { name })],
      [`/templates?dialog=delete&template=${id}`, page.getByRole("dialog", { name: `Delete ${name}?` })],
      ["/templates/new", page.getByRole("heading", { name: "Create template" })],
      [`/templates/${id}/edit`, page.getByRole("heading", { name: `Edit ${name}` })],
    ];
    for (const [path, ready] of pages) {
      await page.goto(path);
      await expect(ready).toBeVisible();
      await noSidewaysScroll(page, path);
    }
    for (const device of ["mobile", "tablet", "desktop"]) {
      const path = `/preview?template=${id}&device=${device}&body.1=Otieno`;
      await page.goto(path);
      const figure = page.getByRole("figure", { name: `Message preview, ${device} width` });
      await expect(figure).toContainText("Habari Otieno");
      await noSidewaysScroll(page, path);
      const box = (await figure.boundingBox())!;
      expect(box.x + box.width, `the ${device} preview ends inside the screen`).toBeLessThanOrEqual(375);
    }
  });
});

test("choosing OTP redraws the form as a verification code message, keeping what was typed, and back", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  await signedIn(page, request);
  await page.goto("/templates/new");
  const name = `login_code_${tag()}`;
  await field(page, "Template name").fill(name);
  await field(page, "Body").fill("Karibu tena.");
  await page.getByLabel("Type", { exact: true }).selectOption({ label: "OTP (Authentication)" });
  // With scripts the choice posts the form at once; without, the button beside it asks for it.
  const showFields = page.getByRole("button", { name: "Show this type's fields" });
  if (javaScriptEnabled) await expect(showFields).toBeHidden();
  else await showFields.click();
  await expect(page.getByRole("heading", { name: "Verification code message" })).toBeVisible();
  await expect(field(page, "Body")).toHaveCount(0);
  await expect(field(page, "Template name")).toHaveValue(name);
  const preview = page.getByRole("complementary", { name: "Preview" }).getByRole("figure");
  await expect(preview).toContainText("is your verification code");

  // One-tap asks for the app's package and key hash (at once with scripts).
  await page.getByLabel("Button", { exact: true }).selectOption({ label: "One-tap autofill (Android)" });
  if (javaScriptEnabled) await expect(field(page, "Android package name")).toBeVisible();

  await page.getByLabel("Type", { exact: true }).selectOption({ label: "Transactional (Utility)" });
  if (!javaScriptEnabled) await showFields.click();
  await expect(page.getByRole("heading", { name: "Content" })).toBeVisible();
  await expect(field(page, "Template name")).toHaveValue(name);
});
