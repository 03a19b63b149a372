import { randomBytes } from "node:crypto";
import { test, expect } from "./fixtures";
import { field, signIn, signUpAndVerifyViaApi } from "./helpers";
import { connectWhatsApp, templateCell, templateRow, waitForTemplateStatus } from "./template-helpers";

// A template with an image header (decision 019), with scripts on and off: the sample chosen with
// the file input, shown in the preview before saving (scripts on), uploaded to the Meta sandbox at
// submission, approved by its reviewer, and shown from /templates/:id/sample in the view dialog.

// A 1×1 PNG.
const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

test("an image header's sample is chosen, previewed, uploaded to Meta at submission, approved, and shown in the preview", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  const user = await signUpAndVerifyViaApi(request, { businessName: "Picha Studio" });
  await signIn(page, user.email, user.password);
  const wabaId = await connectWhatsApp(page, "Picha Studio");
  const name = `season_poster_${randomBytes(3).toString("hex")}`;

  await page.goto("/templates/new");
  await field(page, "Template name").fill(name);
  await page.getByLabel("Type", { exact: true }).selectOption({ label: "Marketing (Marketing)" });
  await page.getByLabel("Header (optional)").selectOption({ label: "Image" });
  await field(page, "Body").fill("Our new season is here: come and see the collection.");
  // Without scripts the file input arrives with the form posted back; what was typed stays.
  if (!javaScriptEnabled) {
    await page.getByRole("button", { name: "Update example fields" }).click();
    await expect(field(page, "Template name")).toHaveValue(name);
  }
  const file = page.getByLabel("Sample image");
  await expect(file).toHaveAttribute("accept", "image/jpeg,image/png");
  await file.setInputFiles({ name: "pixel.png", mimeType: "image/png", buffer: PIXEL });
  const preview = page.getByRole("complementary", { name: "Preview" }).getByRole("figure");
  if (javaScriptEnabled) {
    // The chosen file shows in the preview before anything is sent.
    const local = preview.getByRole("img", { name: "Header image: pixel.png" });
    await expect(local).toHaveAttribute("src", /^blob:/);
    await expect.poll(() => local.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
  } else {
    await expect(preview.getByRole("img", { name: "Header image" })).toBeVisible();
  }

  await page.getByRole("button", { name: "Submit for approval" }).click();
  await expect(page).toHaveURL(/\/templates$/);
  await expect(page.getByRole("status").filter({ hasText: `${name} was submitted to Meta for approval.` })).toBeVisible();
  await expect(templateCell(page, name, "status")).toHaveText("pending");

  // At Meta: the sample arrived through the Resumable Upload API, and the header carries it.
  const uploads = (await (await request.get("/sandbox/meta/control/uploads")).json()).uploads as {
    fileName: string;
    fileLength: number;
    handle: string;
  }[];
  expect(uploads.find((u) => u.fileName === "pixel.png" && u.fileLength === PIXEL.length)?.handle).toMatch(/^4::/);
  const atMeta = (
    (await (await request.get(`/sandbox/meta/control/templates?wabaId=${wabaId}`)).json()) as {
      name: string;
      components: { type: string; format?: string; example?: { header_handle?: string[] } }[];
    }[]
  ).find((t) => t.name === name);
  expect(atMeta!.components[0]).toEqual({
    type: "HEADER",
    format: "IMAGE",
    example: { header_handle: [expect.stringMatching(/\/sandbox\/meta\/uploads\//)] },
  });

  // The sandbox's reviewer approves it; the view dialog shows the image from the sample route.
  // Only this template: the other specs' templates, running side by side, keep their own timing.
  expect((await request.post("/sandbox/meta/control/templates/review", { data: { wabaId } })).ok()).toBe(true);
  await waitForTemplateStatus(page, name, "approved");
  await templateRow(page, name)
    .getByRole("link", { name: `View ${name}` })
    .click();
  const bubble = page.getByRole("dialog", { name }).getByRole("figure", { name: "Message preview, mobile width" });
  const image = bubble.getByRole("img", { name: "Header image: pixel.png" });
  await expect(image).toHaveAttribute("src", /^\/templates\/[0-9a-f-]{36}\/sample$/);
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
  await expect(bubble).toContainText("Our new season is here: come and see the collection.");
  const sample = await page.request.get((await image.getAttribute("src"))!);
  expect(sample.status()).toBe(200);
  expect(sample.headers()["cache-control"]).toBe("private, no-store");
  expect(Buffer.from(await sample.body()).equals(PIXEL)).toBe(true);
});
