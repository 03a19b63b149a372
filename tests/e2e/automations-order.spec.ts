import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL } from "./helpers";
import { connectedBusiness, customerNumber, customerWrites, sandboxMessages, sentMessage, textOf } from "./inbox-helpers";

// Issue 74's browser test: a business turns everything on through the pages (a welcome and an away
// message, a keyword rule, the assistant with its knowledge), the Automations page says what answers
// first, and a new customer's greeting, keyword, question and request for a person get, in that order,
// the welcome, the rule, the away message with the assistant's answer, and a person. A flow's branch
// leads to a step made for it. JavaScript on and off (the projects js and no-js).

/** The answering order as the Automations page lists it: each step's state, in order. */
async function orderStates(page: Page) {
  const order = page.getByRole("region", { name: /What answers first|Kinachojibu kwanza|Ce qui répond en premier/ });
  await expect(order).toBeVisible();
  return order
    .locator("li[data-step]")
    .evaluateAll((items) => items.map((item) => `${item.getAttribute("data-step")}:${item.querySelector(".badge")?.textContent?.trim()}`));
}

test("with everything on, a greeting gets the welcome, a keyword its rule, a question the away message and the assistant, mtu a person", async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  const { phoneNumberId } = await connectedBusiness(page, request);

  await page.goto("/automations");
  expect(await orderStates(page)).toEqual(["consent:Always", "rules:Off", "welcome:Off", "away:Off", "assistant:Off", "person:Always"]);

  // A keyword rule.
  await page.getByRole("link", { name: "New rule" }).click();
  await page.getByRole("textbox", { name: "Name", exact: true }).fill("Bei");
  await page.getByRole("radio", { name: /^Contains / }).check();
  await page.getByRole("textbox", { name: "Keywords", exact: true }).fill("bei\nprice");
  await page.getByRole("textbox", { name: "Reply", exact: true }).fill("Bei zetu: mkate KES 60.");
  await page.getByRole("button", { name: "Create rule" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Rule “Bei” added." })).toBeVisible();

  // The welcome and the away message, closed at every hour (holiday mode).
  await page.goto("/automations/hours");
  await page.getByLabel("Send a welcome message").check();
  await page.getByLabel("Welcome message text").fill("Karibu Mkate Bora! Uliza chochote.");
  await page.getByLabel("Send an away message outside business hours").check();
  await page.getByLabel("Away message text").fill("Tumefunga kwa sasa; tutakujibu asubuhi.");
  await page.getByLabel("Holiday mode: closed until I turn it off").check();
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "Welcome and away messages saved." })).toBeVisible();

  // The assistant, with an article, on the model sandbox: the page says so.
  await page.goto("/automations/knowledge");
  await page.getByRole("textbox", { name: "Title" }).fill("Delivery");
  await page
    .getByRole("textbox", { name: "Text" })
    .fill("We deliver bread in Kilimani and Westlands every morning; delivery costs KES 100.");
  await page.getByRole("button", { name: "Add article" }).click();
  await expect(page.getByRole("status").filter({ hasText: "“Delivery” is added." })).toBeVisible();
  await page.goto("/automations/assistant");
  await page.getByLabel("The assistant answers").check();
  await page.getByRole("group", { name: "Numbers it answers on" }).getByRole("checkbox").first().check();
  await page.getByRole("textbox", { name: "Handover message" }).fill("Nakuunganisha na mwenzetu sasa hivi.");
  await page.getByRole("textbox", { name: "Base URL" }).fill(`${BASE_URL}/sandbox/llm/v1`);
  await page.getByRole("textbox", { name: "Model" }).fill("jumbe-sandbox-1");
  await page.getByLabel("API key").fill("sk-sandbox-mkate");
  await page.getByRole("button", { name: "Save the assistant" }).click();
  await expect(page.getByRole("status").filter({ hasText: "The assistant's settings are saved." })).toBeVisible();
  await expect(page.getByText("Answers come from the sandbox model, not OpenAI: for testing only.")).toBeVisible();
  // "Try it" on a greeting: a greeting back, not a handover.
  await page.getByRole("textbox", { name: "A customer's question" }).fill("Habari");
  await page.getByRole("button", { name: "Ask" }).click();
  await expect(page.getByText(/Habari! Asante kwa kuwasiliana na .+\. Tukusaidie na nini leo\?/)).toBeVisible();
  await expect(page.getByText("It would hand the conversation to a person:")).toHaveCount(0);

  // The order, everything on, in English, Swahili and French.
  await page.goto("/automations");
  expect(await orderStates(page)).toEqual(["consent:Always", "rules:On", "welcome:On", "away:On", "assistant:On", "person:Always"]);
  await page.goto("/automations?lng=sw");
  expect(await orderStates(page)).toEqual([
    "consent:Daima",
    "rules:Imewashwa",
    "welcome:Imewashwa",
    "away:Imewashwa",
    "assistant:Imewashwa",
    "person:Daima",
  ]);
  await page.goto("/automations?lng=fr");
  expect((await orderStates(page)).slice(0, 3)).toEqual(["consent:Toujours", "rules:Activée", "welcome:Activée"]);
  await expect(page.getByText("Une salutation n'est pas une question", { exact: false })).toBeVisible();
  await page.goto("/automations?lng=en");

  // A new customer walks through.
  const from = customerNumber();
  const name = `Akinyi Odhiambo ${randomBytes(2).toString("hex")}`;
  await customerWrites(request, { phoneNumberId, from, name, text: "Habari" });
  await sentMessage(request, phoneNumberId, "Karibu Mkate Bora! Uliza chochote.");
  await customerWrites(request, { phoneNumberId, from, name, text: "bei ya mkate?" });
  await sentMessage(request, phoneNumberId, "Bei zetu: mkate KES 60.");
  await customerWrites(request, { phoneNumberId, from, name, text: "Do you deliver to Kilimani?" });
  await sentMessage(request, phoneNumberId, "KES 100");
  await customerWrites(request, { phoneNumberId, from, name, text: "Nataka kuongea na mtu" });
  await sentMessage(request, phoneNumberId, "Nakuunganisha na mwenzetu sasa hivi.");
  // Held by a person: the keyword rule stays silent now.
  await customerWrites(request, { phoneNumberId, from, name, text: "bei tena?" });
  const other = customerNumber();
  await customerWrites(request, { phoneNumberId, from: other, name: `Juma ${randomBytes(2).toString("hex")}`, text: "bei?" });
  await expect
    .poll(async () => (await sandboxMessages(request, phoneNumberId)).filter((m) => m.to.replace(/\D/g, "") === other).length, {
      timeout: 30_000,
    })
    .toBe(1);
  const toCustomer = (await sandboxMessages(request, phoneNumberId)).filter((m) => m.to.replace(/\D/g, "") === from).map(textOf);
  expect(toCustomer).toHaveLength(5);
  expect(toCustomer[0]).toContain("Karibu Mkate Bora!");
  expect(toCustomer[1]).toContain("Bei zetu");
  expect(toCustomer[2]).toContain("Tumefunga kwa sasa");
  expect(toCustomer[3]).toContain("KES 100");
  expect(toCustomer[4]).toContain("Nakuunganisha");
});

test("a flow's branch leads to a new step, made for it and filled in next", async ({ page, request }) => {
  test.setTimeout(180_000);
  await connectedBusiness(page, request);
  await page.goto("/automations/flows");
  await page.getByRole("link", { name: "New flow" }).first().click();
  await page.getByRole("textbox", { name: "Name" }).fill("Oda ya mkate");
  await page.getByRole("button", { name: "Create the flow" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Flow “Oda ya mkate” added." })).toBeVisible();

  await page.getByLabel("Add a step").selectOption({ label: "Ask a question" });
  await page.getByRole("button", { name: "Choose" }).click();
  await page.getByRole("textbox", { name: "Question" }).fill("Unataka mkate leo?");
  await page.getByRole("textbox", { name: "Save the answer as" }).fill("jibu");
  await page.getByRole("button", { name: "Add the step" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Step saved." })).toBeVisible();

  await page.getByLabel("Add a step").selectOption({ label: "Branch" });
  await page.getByRole("button", { name: "Choose" }).click();
  await page.getByRole("textbox", { name: "Value" }).fill("ndiyo");
  await page.getByLabel("If it holds go to").selectOption({ label: "A new step: Send a message" });
  await page.getByLabel("Otherwise go to").selectOption({ label: "the end" });
  await page.getByRole("button", { name: "Add the step" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Step saved. Step 3 is new: say what it does." })).toBeVisible();
  await expect(page.getByText("Step 3 is new: until you save it, it ends the flow.")).toBeVisible();
  await page.getByRole("textbox", { name: "Text", exact: true }).fill("Sawa! Mkate utafika saa moja asubuhi.");
  await page.getByRole("button", { name: "Save the step" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Step saved." })).toBeVisible();
  await expect(page.getByText("3 of 25 steps.")).toBeVisible();
  await expect(page.getByText("Sawa! Mkate utafika saa moja asubuhi.").first()).toBeVisible();
});
