import { randomInt } from "node:crypto";
import { test, expect } from "./fixtures";
import { connectThroughDialog, kenyanNumber, openSignupDialog, signIn, signUpAndVerifyViaApi } from "./helpers";

// Embedded Signup end to end: the product's /whatsapp page, the Meta sandbox's dialog (playing
// Meta's popup with JavaScript, a plain page without), the callback, and webhooks coming back.

test("a new account connects WhatsApp through Embedded Signup, sees it everywhere, and disconnects and reconnects it", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  const user = await signUpAndVerifyViaApi(request, { businessName: "Duka la Mama Njeri" });
  await signIn(page, user.email, user.password, { to: "/whatsapp" });
  await expect(page.getByRole("heading", { name: "WhatsApp Business Setup" })).toBeVisible();
  await expect(page.getByTestId("signup-status")).toHaveText("Signup not complete. Please follow the steps below.");
  await expect(page.getByTestId("step-embedded-signup")).toHaveAttribute("data-status", "pending");

  const number = kenyanNumber();
  const digits = number.replace(/\D/g, "");
  await connectThroughDialog(page, javaScriptEnabled, number, "Mama Njeri");

  // The callback: success text and toast, then on to /whatsapp-setup, which is /whatsapp, after 2 s.
  await expect(page.getByTestId("callback-result")).toHaveAttribute("data-state", "success");
  await expect(page.getByRole("heading", { name: "Signup complete!" })).toBeVisible();
  await expect(page.getByText(`+${digits} (Mama Njeri)`)).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Signup complete!" })).toBeVisible();
  await expect(page).toHaveURL(/\/whatsapp$/, { timeout: 30_000 });
  await expect(page.getByTestId("signup-status")).toHaveText("Connected");
  for (const step of ["embedded-signup", "verify-number", "complete-setup"])
    await expect(page.getByTestId(`step-${step}`)).toHaveAttribute("data-status", "completed");
  await expect(page.getByTestId("phone-number")).toContainText(`+${digits}`);
  await expect(page.getByTestId("phone-number")).toContainText("Quality: high");

  // The Overview card shows the real connection and its toggle really disconnects.
  await page.goto("/dashboard");
  await expect(page.getByTestId("whatsapp-status")).toHaveText("Connected");
  // Active needs an approved template too: the status says what is left.
  await expect(page.getByTestId("stat-account-status")).toHaveText("Setup");
  await expect(page.getByText("WhatsApp connected and get a template approved")).toBeVisible();
  await expect(page.getByTestId("phone-number")).toContainText("Mama Njeri");
  // Disconnect asks first: in a dialog with JavaScript, on /whatsapp without. Cancel changes nothing.
  const question = `Disconnect Mama Njeri (+${digits})?`;
  const ask = async () => {
    await page.getByRole("button", { name: "Disconnect" }).click();
    const asked = javaScriptEnabled ? page.getByRole("dialog", { name: question }) : page.getByRole("alertdialog", { name: question });
    await expect(asked).toBeVisible();
    if (!javaScriptEnabled) await expect(page).toHaveURL(/\/whatsapp\?confirm=disconnect&account=[0-9a-f-]+&redirectTo=%2Fdashboard$/);
    return asked;
  };
  await (await ask()).getByRole(javaScriptEnabled ? "button" : "link", { name: "Cancel" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByTestId("connection")).toHaveAttribute("data-status", "connected");
  await (await ask()).getByRole("button", { name: "Disconnect" }).click();
  await expect(page.getByRole("status").filter({ hasText: "WhatsApp account disconnected." })).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByTestId("connection")).toHaveAttribute("data-status", "disconnected");
  await expect(page.getByTestId("stat-account-status")).toHaveText("Setup");
  await expect(page.getByText("Connect WhatsApp and get a template approved")).toBeVisible();
  // Meta's side: the app is no longer subscribed to the WABA.
  const state = await (await request.get("/sandbox/meta/control/state")).json();
  const waba = state.phoneNumbers.find((p: { displayPhoneNumber: string }) => p.displayPhoneNumber.replace(/\D/g, "") === digits).wabaId;
  expect(JSON.stringify(state.subscriptions)).not.toContain(waba);
  // The setup page agrees with itself: not complete, and no step still reads completed.
  await page.goto("/whatsapp");
  await expect(page.getByTestId("signup-status")).toHaveText("Signup not complete. Please follow the steps below.");
  for (const step of ["embedded-signup", "verify-number", "complete-setup"])
    await expect(page.getByTestId(`step-${step}`)).toHaveAttribute("data-status", "pending");
  await page.goto("/dashboard");

  await page.getByRole("button", { name: "Reconnect" }).click();
  await expect(page.getByTestId("connection")).toHaveAttribute("data-status", "connected");
  await expect(page.getByText("WhatsApp connected and get a template approved")).toBeVisible();
  const after = await (await request.get("/sandbox/meta/control/state")).json();
  expect(JSON.stringify(after.subscriptions)).toContain(waba);
  // On the setup page (a page without React) the question is the server's, with JavaScript or without.
  await page.goto("/whatsapp");
  await page.getByRole("button", { name: "Disconnect" }).click();
  await expect(page).toHaveURL(/\/whatsapp\?confirm=disconnect&account=[0-9a-f-]+$/);
  await page.getByRole("alertdialog", { name: question }).getByRole("link", { name: "Cancel" }).click();
  await expect(page).toHaveURL(/\/whatsapp$/);
  await expect(page.getByTestId("connection")).toHaveAttribute("data-status", "connected");

  // A customer writes in, from the sandbox console's form: the signed webhook goes through the queue
  // and the customer counts as an active contact on the Overview.
  const phoneNumberId = state.phoneNumbers.find((p: { wabaId: string }) => p.wabaId === waba).id;
  await page.goto("/sandbox/meta");
  await page.getByLabel("To business number").selectOption(phoneNumberId);
  await page.getByLabel("From (customer number)").fill(`2547${randomInt(10_000_000, 99_999_999)}`);
  await page.getByLabel("Customer profile name").fill("Wanjiku Kamau");
  await page.getByRole("button", { name: "Send inbound message" }).click();
  await expect(page).toHaveURL(/\/sandbox\/meta/);
  await expect(async () => {
    await page.goto("/dashboard");
    await expect(page.getByTestId("stat-active-contacts")).toHaveText("1", { timeout: 1000 });
  }).toPass({ timeout: 30_000 });

  // A quality webhook from Meta, signed and delivered, reaches the page through the queue.
  expect(
    (await request.post("/sandbox/meta/control/quality", { data: { phoneNumberId, event: "FLAGGED", currentLimit: "TIER_2K" } })).ok(),
  ).toBe(true);
  await request.post("/sandbox/meta/control/flush");
  await expect(async () => {
    await page.goto("/whatsapp");
    await expect(page.getByTestId("phone-number")).toContainText("Last quality event: FLAGGED", { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
});

test("closing Meta's window before the end connects nothing", async ({ page, request, javaScriptEnabled }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/whatsapp" });
  const dialog = await openSignupDialog(page, javaScriptEnabled);
  if (javaScriptEnabled) {
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(page.getByTestId("connect-phase")).toHaveText("Signup was closed before it finished. You can start again at any time.");
  } else {
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(page.getByRole("heading", { name: "Failed to complete signup. Please try again." })).toBeVisible();
    await expect(page.getByText("Signup was closed in Meta's window before it finished.")).toBeVisible();
    await expect(page.getByRole("alert").filter({ hasText: "Signup failed" })).toBeVisible();
  }
  await page.goto("/whatsapp");
  await expect(page.getByTestId("signup-status")).toHaveText("Signup not complete. Please follow the steps below.");
  await expect(page.getByTestId("connections")).toHaveCount(0);
});

test("the callback without its parameters says so and changes nothing", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/embedded-callback?code=only-a-code" });
  await expect(page.getByRole("heading", { name: "Missing required parameters." })).toBeVisible();
  await expect(page.getByRole("alert").filter({ hasText: "Missing required parameters." })).toHaveCount(2);
  const status = await page.request.get("/api/embedded-signup/status");
  expect(status.status()).toBe(200);
  expect((await status.json()).completed).toBe(false);
});

test("Meta refusing the number's registration shows the failure text and leaves nothing connected", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password);
  // A number of this business's own (made in the dialog before) that someone already registered with
  // another two-step PIN: Meta answers 133005 to Jumbe's PIN. The dialog offers a business only to the
  // user who made it: the key Jumbe passes it as sandbox_user.
  await page.goto("/whatsapp");
  const href = await page.getByTestId("connect-whatsapp").getAttribute("href");
  const owner = new URL(href!, "http://jumbe.test").searchParams.get("sandbox_user");
  expect(owner).toBeTruthy();
  const number = kenyanNumber();
  const created = await (
    await request.post("/sandbox/meta/control/businesses", {
      data: { businessName: "Taken Pin Ltd", verifiedName: "Taken Pin", displayPhoneNumber: number, owner },
    })
  ).json();
  const { code } = await (
    await request.post("/sandbox/meta/control/codes", { data: { businessId: created.businessId, wabaIds: [created.wabaId] } })
  ).json();
  const graph = "/sandbox/meta/graph/v25.0";
  const token = (
    await (
      await request.get(`${graph}/oauth/access_token`, {
        params: { client_id: "100000000000001", client_secret: "jumbe-sandbox-meta-app-secret", code },
      })
    ).json()
  ).access_token;
  const registered = await request.post(`${graph}/${created.phoneNumberId}/register`, {
    headers: { Authorization: `Bearer ${token}` },
    data: { messaging_product: "whatsapp", pin: "246810" },
  });
  expect(registered.ok()).toBe(true);
  await request.post(`${graph}/${created.phoneNumberId}/deregister`, { headers: { Authorization: `Bearer ${token}` } });

  await page.goto("/whatsapp");
  const dialog = await openSignupDialog(page, javaScriptEnabled);
  await dialog.getByLabel(number).check();
  await dialog.getByRole("button", { name: "Finish" }).click();

  await expect(page.getByRole("heading", { name: "Failed to complete signup. Please try again." })).toBeVisible();
  await expect(page.getByText("Meta refused to register the phone number for the Cloud API.")).toBeVisible();
  await expect(page.getByRole("alert").filter({ hasText: "Signup failed" })).toBeVisible();
  await page.goto("/whatsapp");
  await expect(page.getByTestId("step-embedded-signup")).toHaveAttribute("data-status", "error");
  await expect(page.getByTestId("connections")).toHaveCount(0);
  const state = await (await request.get("/sandbox/meta/control/state")).json();
  expect(JSON.stringify(state.subscriptions)).not.toContain(created.wabaId);
});

test("the setup page and the callback's result have no serious accessibility violations", async ({ page, request, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "axe runs in the page");
  const { default: AxeBuilder } = await import("@axe-core/playwright");
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password);
  for (const path of ["/whatsapp", "/embedded-callback?code=x"]) {
    await page.goto(path);
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(
      serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
      path,
    ).toEqual([]);
  }
});
