import type { APIRequestContext, Page } from "@playwright/test";
import { expect } from "./fixtures";
import { bubble } from "./inbox-helpers";

// The SMS browser tests' tools (issue 77): an Africa's Talking sandbox application connected on
// Settings → SMS with the page's callback addresses given to the sandbox, and waits on the sandbox's
// own record of its callbacks.

export const AT = "/sandbox/africastalking";

export interface AtApp {
  username: string;
  apiKey: string;
  senderIds: string[];
  shortcodes: string[];
}

interface Callback {
  kind: "delivery" | "incoming" | "optout";
  body: string;
  state: "pending" | "delivered" | "failed";
  attempts: { status: number | null }[];
}

/**
 * Settings → SMS: the application saved and tested, then the page's three callback addresses given to
 * the sandbox's application (as one pastes them into AT's dashboard). `create` makes the application
 * in the sandbox first (a business of the test's own; the demo's exists already).
 */
export async function connectSmsApp(page: Page, request: APIRequestContext, app: AtApp, { create = false } = {}) {
  if (create) expect((await request.put(`${AT}/control/accounts/${app.username}`, { data: app })).ok()).toBe(true);
  await page.goto("/settings/sms");
  await page.getByLabel("Username").fill(app.username);
  await page.getByLabel("API key").fill(app.apiKey);
  await page.getByLabel("Sender ID or shortcode").fill(app.senderIds[0]!);
  await page.getByRole("button", { name: /^(Save|Connect)$/ }).click();
  await expect(page.getByText(/SMS settings saved|Nothing changed/)).toBeVisible();
  await page.getByRole("button", { name: "Test connection" }).click();
  await expect(page.getByText(/Africa's Talking answered/)).toBeVisible();
  const addresses = page.locator("dl dd code");
  const address = async (end: RegExp) => (await addresses.filter({ hasText: end }).textContent())!.trim();
  const given = await request.put(`${AT}/control/accounts/${app.username}`, {
    data: {
      ...app,
      deliveryReportUrl: await address(/\/delivery$/),
      incomingUrl: await address(/\/incoming$/),
      optOutUrl: await address(/\/optout$/),
    },
  });
  expect(given.ok()).toBe(true);
}

/** Waits until the sandbox has posted a callback of `kind` whose form matches, and Jumbe answered 200. */
export async function callbackDelivered(request: APIRequestContext, kind: Callback["kind"], matches: (form: URLSearchParams) => boolean) {
  await expect
    .poll(
      async () => {
        const answer = await request.get(`${AT}/control/callbacks`);
        const { callbacks } = (await answer.json()) as { callbacks: Callback[] };
        const mine = callbacks.filter((c) => c.kind === kind && matches(new URLSearchParams(c.body)));
        return mine.map((c) => `${c.state} ${c.attempts.at(-1)?.status ?? "-"}`);
      },
      { timeout: 60_000 },
    )
    .toContain("delivered 200");
}

/** The SMS the sandbox was asked to send to `phone` (E.164), by any application. */
export async function smsSentTo(request: APIRequestContext, phone: string) {
  const { messages } = (await (await request.get(`${AT}/control/messages`)).json()) as {
    messages: { message: string; recipients: { number: string }[] }[];
  };
  return messages.filter((m) => m.recipients.some((r) => r.number === phone)).map((m) => m.message);
}

/** The thread's bubble of `text` has `status`, the page loaded anew until it does (no live update without scripts). */
export async function bubbleStatus(page: Page, url: string, text: string, status: string) {
  await expect
    .poll(
      async () => {
        await page.goto(url);
        return (await bubble(page, text).first().getAttribute("data-status")) ?? "absent";
      },
      { timeout: 60_000 },
    )
    .toBe(status);
}
