import { readFileSync } from "node:fs";
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { test, expect } from "./fixtures";
import { DEMO, signIn, signUpAndVerifyViaApi } from "./helpers";
import { ownServer } from "./own-server";

// The Activity log and the Developers page, with JavaScript on and off.

test("the activity log filters through the URL, pages, and exports the same records as CSV", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request, { businessName: "Kumbukumbu Ltd" });
  // The account's real records so far: its sign-up, verification and sign-in.
  await signIn(page, user.email, user.password, { to: "/activity" });
  await expect(page.getByRole("heading", { name: "Activity Log" })).toBeVisible();
  await expect(page.getByTestId("stat-total-activities")).not.toHaveText("0");

  await page.getByLabel("Type").selectOption("billing");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/type=billing/);
  await expect(page.getByText("No activities found matching your filters")).toBeVisible();
  await expect(page.getByTestId("stat-total-activities")).toHaveText("0");

  await page.getByLabel("Type").selectOption("all");
  await page.getByLabel("Status").selectOption("success");
  await page.getByLabel("Date range").selectOption("24hours");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/status=success/);
  await expect(page.getByTestId("activity-item").first()).toContainText("Signed in");

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export").click()]);
  expect(download.suggestedFilename()).toMatch(/^activity_logs_\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync((await download.path())!, "utf8");
  expect(csv).toContain('"ID","Timestamp","Type","Status","Action","Details","IP Address","User Agent"');
  expect(csv).toContain('"Signed in"');
  expect(csv).not.toContain('"error"');

  // A filter the server does not know is explained, and shared links keep their filters.
  await page.goto("/activity?type=payments");
  await expect(page.getByRole("alert")).toHaveText('Unknown activity type "payments".');
  await page.goto("/api/activity-logs/export?type=payments").catch(() => undefined);
  await expect(page).toHaveURL(/\/activity\?type=payments&exportError=1/);
  await expect(page.getByText("Failed to export activity logs. Please try again.")).toBeVisible();
});

test("the Developers page shows, copies and regenerates the key with confirmation, and saves the webhook", async ({
  page,
  request,
  javaScriptEnabled,
  context,
}) => {
  const user = await signUpAndVerifyViaApi(request, { businessName: "Msanidi Ltd" });
  await signIn(page, user.email, user.password, { to: "/developers" });
  await expect(page.getByTestId("stat-rate-limit")).toHaveText("1,000/min");
  await expect(page.getByTestId("api-key")).toHaveCount(0);

  await page.getByRole("link", { name: "Show" }).click();
  const key = await page.getByTestId("api-key").inputValue();
  expect(key).toMatch(/^jmb_live_[A-Za-z0-9_-]{43}$/);
  if (javaScriptEnabled) {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    // A document without React: the copy button is app/assets/forms.js's.
    await page.getByRole("button", { name: "Copy" }).first().click();
    await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  } else await expect(page.getByRole("button", { name: "Copy" })).toHaveCount(0);

  // The key works on the API; the page's figures count the call.
  const api = await request.get("/api/v1/account", { headers: { Authorization: `Bearer ${key}` } });
  expect(api.status()).toBe(200);
  expect((await api.json()).organization.name).toBe("Msanidi Ltd");

  await page.getByRole("link", { name: "Regenerate" }).click();
  await expect(page.getByText("Regenerate the API key?")).toBeVisible();
  await page.getByRole("button", { name: "Yes, regenerate the key" }).click();
  await expect(page.getByRole("status").filter({ hasText: "New API key created. The old key no longer works." })).toBeVisible();
  const fresh = await page.getByTestId("api-key").inputValue();
  expect(fresh).not.toBe(key);
  expect((await request.get("/api/v1/account", { headers: { Authorization: `Bearer ${key}` } })).status()).toBe(401);
  expect((await request.get("/api/v1/account", { headers: { Authorization: `Bearer ${fresh}` } })).status()).toBe(200);
  await page.getByRole("link", { name: "Hide" }).click();
  await expect(page.getByTestId("api-key")).toHaveCount(0);
  // Two calls with a live key; the one with the revoked key belongs to no tenant.
  await expect(page.getByTestId("stat-api-calls")).toHaveText("2");
  await expect(page.getByTestId("stat-success-rate")).toHaveText("100%");

  // Webhook: every event starts checked; an address inside the machine is refused.
  for (const event of [
    "message.delivered",
    "message.read",
    "message.failed",
    "message.received",
    "conversation.handover",
    "flow.completed",
    "partner.settlement.paid",
    "payment_request.paid",
    "payment_request.failed",
    "payment_request.expired",
    "payment_request.cancelled",
  ])
    await expect(page.getByLabel(event)).toBeChecked();
  await page.getByLabel("Webhook URL").fill("http://127.0.0.1:8080/hooks");
  await page.getByRole("button", { name: "Save Webhook Configuration" }).click();
  await expect(page.getByLabel("Webhook URL")).toHaveAccessibleDescription(
    "The webhook URL must not point to a private, loopback or link-local address.",
  );
  await page.getByLabel("Webhook URL").fill("https://8.8.8.8/jumbe/hooks");
  await page.getByLabel("message.read").uncheck();
  await page.getByRole("button", { name: "Save Webhook Configuration" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Webhook configuration saved." })).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Webhook URL")).toHaveValue("https://8.8.8.8/jumbe/hooks");
  await expect(page.getByLabel("message.read")).not.toBeChecked();
  await expect(page.getByLabel("message.failed")).toBeChecked();

  // Endpoints and examples come from the OpenAPI document: the tab's own example sends a message,
  // each endpoint's page has its own.
  // One row per operation the served document declares (counted from it, so a new endpoint does
  // not need this number changed, and one the page drops is caught).
  const document = (await (await request.get("/api/v1/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
  const methods = new Set(["get", "post", "put", "patch", "delete"]);
  const operations = Object.values(document.paths).flatMap((item) => Object.keys(item).filter((key) => methods.has(key)));
  expect(operations.length).toBeGreaterThan(40);
  await expect(page.getByTestId("endpoint")).toHaveCount(operations.length);
  await expect(page.getByTestId("example-curl")).toContainText("-X POST");
  await expect(page.getByTestId("example-curl")).toContainText("/api/v1/messages");
  await page.getByRole("link", { name: /GET\s*\/api\/v1\/account/ }).click();
  await expect(page).toHaveURL(/\/developers\/api\/\w+$/);
  await expect(page.getByTestId("example-curl")).toContainText("/api/v1/account");
  await page.getByRole("link", { name: "Python" }).click();
  await expect(page.getByTestId("example-python")).toContainText("/api/v1/account");

  // Every key read and the regeneration are in the activity log.
  await page.goto("/activity?type=security");
  await expect(page.getByTestId("activity-list")).toContainText("API key regenerated");
  await expect(page.getByTestId("activity-list")).toContainText("API key viewed");
});

/** A webhook receiver on loopback that answers 200 and keeps what it was sent. */
async function webhookReceiver() {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "content-type": "text/plain" }).end("received");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jumbe/hooks`,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

test("the Developers page sends a test event to the webhook, lists its delivery, and redelivers it", async ({ page }) => {
  // A server of its own that may deliver to loopback (WEBHOOK_ALLOW_LOOPBACK, refused in production):
  // the shared one keeps refusing 127.0.0.1, as the test above checks.
  test.setTimeout(150_000);
  const receiver = await webhookReceiver();
  const server = await ownServer("webhooks-out");
  try {
    await server.start({ WEBHOOK_ALLOW_LOOPBACK: "1" });
    await signIn(page, DEMO.email, DEMO.password, { base: server.base, to: "/developers" });
    await page.getByLabel("Webhook URL").fill(receiver.url);
    await page.getByRole("button", { name: "Save Webhook Configuration" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Webhook configuration saved." })).toBeVisible();

    await page.getByRole("link", { name: "Show secret" }).click();
    const secret = await page.getByTestId("webhook-secret").inputValue();
    expect(secret).toMatch(/^whsec_/);

    await page.getByRole("button", { name: "Send test event" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Test event queued." })).toBeVisible();
    const deliveries = page.getByRole("table", { name: "Recent webhook deliveries" });
    const row = deliveries.getByRole("row").filter({ hasText: "webhook.test" });
    await expect(row).toHaveCount(1);
    // The job workers deliver it in the background; Refresh loads the list again until it shows.
    await expect(async () => {
      await page.getByRole("button", { name: "Refresh" }).click();
      await expect(row.getByTestId("delivery-result")).toContainText("Delivered HTTP 200", { timeout: 1000 });
    }).toPass({ timeout: 30_000 });
    await expect(row.getByTestId("delivery-attempts")).toHaveText("1");
    expect(receiver.received).toHaveLength(1);
    const [first] = receiver.received;
    const verify = (request: typeof first) =>
      new Webhook(secret).verify(request!.body, {
        "webhook-id": String(request!.headers["webhook-id"]),
        "webhook-timestamp": String(request!.headers["webhook-timestamp"]),
        "webhook-signature": String(request!.headers["webhook-signature"]),
      });
    expect(verify(first)).toMatchObject({ type: "webhook.test" });
    await row.getByText("Answer").click();
    await expect(row.getByText("received", { exact: true })).toBeVisible();

    await row.getByRole("button", { name: /^Redeliver/ }).click();
    await expect(page.getByRole("status").filter({ hasText: "Event queued to be sent again." })).toBeVisible();
    await expect(async () => {
      await page.getByRole("button", { name: "Refresh" }).click();
      await expect(row.getByTestId("delivery-attempts")).toHaveText("2", { timeout: 1000 });
    }).toPass({ timeout: 30_000 });
    await expect(row.getByTestId("delivery-result")).toContainText("Delivered HTTP 200");
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(verify(receiver.received[1])).toMatchObject({ type: "webhook.test" });
  } finally {
    // Nothing left open on the server about to stop: the page's live bell would reconnect to it.
    await page.goto("about:blank");
    await server.dispose();
    await receiver.close();
  }
});

test("the activity and developer pages have no serious accessibility violations", async ({ page, request, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "axe runs in the page");
  const { default: AxeBuilder } = await import("@axe-core/playwright");
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password);
  for (const path of [
    "/activity",
    "/developers",
    "/developers?reveal=1&confirm=regenerate",
    "/developers/api/sendMessage",
    "/developers/errors",
  ]) {
    await page.goto(path);
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(
      serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
      path,
    ).toEqual([]);
  }
});

test("the Developers pages list the API's error codes, and each endpoint's, as the API answers them", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request, { businessName: "Makosa Catalogue Ltd" });
  await signIn(page, user.email, user.password, { to: "/developers" });
  await page.getByRole("link", { name: "error catalogue" }).click();
  await expect(page.getByRole("heading", { name: "API errors", level: 1 })).toBeVisible();
  // A reference page sent as a document without React (decision 063).
  expect(await page.evaluate(() => "__reactRouterContext" in window)).toBe(false);
  const table = page.getByRole("table", { name: "Error codes of the API" });
  const suspended = table.getByRole("row").filter({ hasText: "account_suspended" });
  await expect(suspended).toContainText("403");
  await expect(suspended).toContainText("Contact Jumbe support to have the organisation reinstated");
  await expect(table.getByRole("row").filter({ hasText: "permission_denied" })).toContainText("403");
  await expect(table.getByRole("row").filter({ hasText: /^not_found/ })).toContainText("404");

  // Each endpoint's page names the codes it can answer, linked to the catalogue.
  await page.goto("/developers");
  await page.getByRole("link", { name: /GET\s*\/api\/v1\/messages\/\{id\}/ }).click();
  await expect(page.getByTestId("endpoint-path")).toHaveText(/^GET\s*\/api\/v1\/messages\/\{id\}$/);
  const codes = page.getByRole("table", { name: "Error codes of GET /api/v1/messages/{id}" });
  await expect(codes.getByRole("row").filter({ hasText: "account_suspended" })).toContainText("403");
  await codes.getByRole("link", { name: "not_found" }).click();
  await expect(page).toHaveURL(/\/developers\/errors#error-not_found$/);
  await page.goto("/developers");

  // The key answers as the page says: a malformed id is the message's not_found.
  await page.getByRole("link", { name: "Show" }).click();
  const key = await page.getByTestId("api-key").inputValue();
  const answer = await request.get("/api/v1/messages/not-a-message", { headers: { Authorization: `Bearer ${key}` } });
  expect(answer.status()).toBe(404);
  expect((await answer.json()).code).toBe("not_found");
});
