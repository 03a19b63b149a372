import { test, expect } from "./fixtures";
import { DEMO, field, signIn } from "./helpers";

// A form's checks (zod and the app's schemas) are not part of a page's first visit: they load when
// the form is first used, then say the server's words in the browser without a request (decision 061).

// zod, and the module that runs a schema over the form (vite.config.ts names both chunks).
const CHECK_SCRIPTS = /\/assets\/(zod|schema-check)-[\w-]+\.js$/;

test("the template form loads its checks when first used, then checks in the browser", async ({ page, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "checks in the browser need scripts");
  const scripts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
  });
  await signIn(page, DEMO.email, DEMO.password, { to: "/templates/new" });
  const name = field(page, "Template name");
  await expect(name).toBeVisible();
  await page.waitForLoadState("networkidle");
  expect(
    scripts.filter((path) => CHECK_SCRIPTS.test(path)),
    "no checks on the first visit",
  ).toEqual([]);

  const loaded = page.waitForResponse((response) => CHECK_SCRIPTS.test(new URL(response.url()).pathname));
  await name.click();
  await loaded;
  await page.waitForLoadState("networkidle");

  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") posts.push(request.url());
  });
  const words = /Use lowercase letters, numbers and underscores only, e\.g\. order_update\./;
  await name.fill("Order Update!");
  await field(page, "Body").fill("Habari, your order is ready for collection.");
  await page.getByRole("button", { name: "Save draft" }).click();
  await expect(name).toHaveAccessibleDescription(words);
  await expect(name).toHaveAttribute("aria-invalid", "true");
  expect(posts, "refused in the browser: nothing posted").toEqual([]);

  // Corrected as it is typed: the message goes.
  await name.fill("order_update");
  await expect(name).not.toHaveAccessibleDescription(words);
});
