import { test, expect } from "./fixtures";
import { field, signIn, signUpAndVerifyViaApi } from "./helpers";

// The forms' checks are the server's (decisions 061 and 068): every page with a form is a document,
// so zod and the module that ran a schema in the browser are never sent. The template editor, the
// last form that checked in the browser, is checked by the server when it is saved; as it is typed
// the server redraws its preview and example fields (app/assets/live.js).

// zod, and the module that runs a schema over the form (vite.config.ts names both chunks).
const CHECK_SCRIPTS = /\/assets\/(zod|schema-check)-[\w-]+\.js$/;

test("the template form is checked by the server, and the preview and example fields follow the typing", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  // An account of its own: the draft saved at the end must not change the demo business's templates.
  const user = await signUpAndVerifyViaApi(request);
  const scripts: string[] = [];
  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
    if (request.method() === "POST")
      posts.push(
        request
          .postDataBuffer()
          ?.toString("latin1")
          .match(/name="intent"\r\n\r\n(\w+)/)?.[1] ?? "?",
      );
  });
  await signIn(page, user.email, user.password, { to: "/templates/new" });
  // With scripts the no-script button is hidden: the example fields come by themselves.
  const update = page.getByRole("button", { name: "Update example fields" });
  if (javaScriptEnabled) await expect(update).toBeHidden();
  else await expect(update).toBeVisible();
  const name = field(page, "Template name");
  const preview = page.getByRole("complementary", { name: "Preview" }).getByRole("figure");
  await name.fill("Order Update!");
  await field(page, "Body").fill("Habari {{1}}, your order is ready for collection.");
  if (javaScriptEnabled) {
    // The server's drawing of the typed values: the preview and the example of {{1}}, without a button.
    await expect(preview).toContainText("Habari {{1}}, your order is ready for collection.");
    await expect(field(page, "Example for {{1}}")).toBeVisible();
    await field(page, "Example for {{1}}").fill("Wanjiku");
    await expect(preview).toContainText("Habari Wanjiku, your order is ready for collection.");
    await expect(name).toHaveValue("Order Update!");
    expect(posts.length, "the typing posts the form to be redrawn").toBeGreaterThan(0);
    expect(new Set(posts)).toEqual(new Set(["refresh"]));
  } else {
    await update.click();
    await field(page, "Example for {{1}}").fill("Wanjiku");
  }

  const words = /Use lowercase letters, numbers and underscores only, e\.g\. order_update\./;
  await page.getByRole("button", { name: "Save draft" }).click();
  await expect(name).toHaveAccessibleDescription(words);
  await expect(name).toHaveAttribute("aria-invalid", "true");
  await expect(name).toHaveValue("Order Update!");
  await expect(field(page, "Example for {{1}}")).toHaveValue("Wanjiku");
  await expect(page).toHaveURL(/\/templates\/new$/);
  expect(
    scripts.filter((path) => CHECK_SCRIPTS.test(path)),
    "no checks in the browser",
  ).toEqual([]);

  // Corrected and saved.
  await name.fill(`order_update_${Date.now().toString(36)}`);
  await page.getByRole("button", { name: "Save draft" }).click();
  await expect(page).toHaveURL(/\/templates$/);
});
