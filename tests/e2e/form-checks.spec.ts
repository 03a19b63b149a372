import { test, expect } from "./fixtures";
import { DEMO, field, signIn } from "./helpers";

// A form's checks (zod and the app's schemas) are not part of a page's first visit: they load when
// the form is first used, then say the server's words in the browser without a request (decision 061).

// zod, and the module that runs a schema over the form (vite.config.ts names both chunks).
const CHECK_SCRIPTS = /\/assets\/(zod|schema-check)-[\w-]+\.js$/;

test("the top-up form loads its checks when first used, then checks in the browser", async ({ page, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "checks in the browser need scripts");
  const scripts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
  });
  await signIn(page, DEMO.email, DEMO.password, { to: "/billing?dialog=topup" });
  const amount = field(page, "Amount (KES)");
  await expect(amount).toBeVisible();
  await page.waitForLoadState("networkidle");
  expect(
    scripts.filter((path) => CHECK_SCRIPTS.test(path)),
    "no checks on the first visit",
  ).toEqual([]);

  const loaded = page.waitForResponse((response) => CHECK_SCRIPTS.test(new URL(response.url()).pathname));
  await amount.click();
  await loaded;
  await page.waitForLoadState("networkidle");

  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") posts.push(request.url());
  });
  await amount.fill("5");
  await page.getByRole("button", { name: "Continue to payment" }).click();
  await expect(page.getByText("Enter a whole number of shillings from KES 10 to KES 250,000.")).toBeVisible();
  await expect(amount).toHaveAttribute("aria-invalid", "true");
  expect(posts, "refused in the browser: nothing posted").toEqual([]);

  // Corrected as it is typed: the message goes.
  await amount.fill("500");
  await expect(page.getByText("Enter a whole number of shillings from KES 10 to KES 250,000.")).toHaveCount(0);
});
