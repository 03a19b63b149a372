import { expect } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { createTemplate } from "~/.server/domains/templates/manage";
import type { TemplateInput } from "~/lib/templates";
import type { metaSandboxForFile } from "./meta-harness";
import { until } from "./automation-harness";

// The shop's test material (issue 76): a product as the form takes it, and a multi-product (or
// catalog) template made with the template form's rules and approved by the Meta sandbox.

/** A product of the Lamu shop, as createProduct takes it (price in cents). */
export const shopProduct = (retailerId: string, name: string, price = 150_000) => ({
  name,
  description: `${name} from Lamu`,
  price,
  retailerId,
  imageUrl: `https://duka.example.co.ke/${retailerId.toLowerCase()}.jpg`,
  availability: "in stock" as const,
});

/** A Marketing template with a text header and the View items (MPM) button; `change` for others. */
export const productTemplate = (change: Partial<TemplateInput> = {}): TemplateInput => ({
  name: "new_arrivals",
  category: "MARKETING",
  language: "en",
  headerFormat: "TEXT",
  headerText: "New arrivals",
  body: "Fresh from the coast, {{1}}: tap to see them.",
  bodyExamples: ["Amina"],
  buttons: [{ type: "MPM", text: "" }],
  ...change,
});

/** Made with the form's rules, submitted to the sandbox, approved by its reviewer, the webhook applied. */
export async function approvedProductTemplate(
  meta: ReturnType<typeof metaSandboxForFile>,
  actor: { organizationId: string; userId: string },
  change: Partial<TemplateInput> = {},
) {
  const result = await createTemplate(actor, productTemplate(change), { submit: true });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  expect(result.submitError).toBeUndefined();
  await meta.sandbox.reviewTemplatesNow();
  await meta.sandbox.flushWebhooks();
  await until(
    () => rawQuery<{ status: string }>(`select status from message_templates where id = $1`, [result.template.id]),
    (rows) => rows[0]!.status === "approved",
  );
  return result.template;
}
