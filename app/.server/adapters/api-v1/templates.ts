import type { z } from "zod";
import { and, eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { whatsappAccounts, type MessageTemplate } from "../../infrastructure/db/schema";
import { listWholeTemplates, findTemplate } from "../../domains/templates/queries";
import { createTemplate, deleteTemplate, TEMPLATE_MESSAGES, type Actor } from "../../domains/templates/manage";
import {
  contentMatchesType,
  formatBytes,
  formatOfType,
  inputFromMeta,
  isMediaFormat,
  MEDIA_SAMPLES,
  sampleContentProblem,
  templateProblems,
  type Problems,
} from "../../../lib/templates";
import { storeSample, usableSample } from "../../domains/templates/media";
import { ApiProblem } from "./problem";
import type { Template, TemplateCreate, TemplatesQuery } from "./schemas";

/** The message templates of /api/v1: the same rules and the same code as the Templates page. */

type ApiTemplate = z.input<typeof Template>;

export function apiTemplate(t: MessageTemplate): ApiTemplate {
  return {
    id: t.id,
    name: t.name,
    language: t.language,
    category: t.category,
    status: t.status,
    rejectionReason: t.rejectionReason,
    platformRejection: t.status === "rejected" ? t.platformRejection : null,
    components: t.components as ApiTemplate["components"],
    wabaId: t.wabaId,
    createdAt: t.createdAt.toISOString(),
    submittedAt: t.submittedAt?.toISOString() ?? null,
    updatedAt: t.updatedAt.toISOString(),
  };
}

const actor = (organizationId: string): Actor => ({ organizationId, userId: null });

const notFound = () =>
  new ApiProblem(404, "not_found", "No template with this id in your organisation: unknown, malformed, deleted or another's.");

export async function listApiTemplates(organizationId: string, query: z.output<typeof TemplatesQuery>) {
  const page = await listWholeTemplates(
    organizationId,
    { q: query.name || undefined, status: query.status, language: query.language },
    { after: query.cursor },
    query.limit,
  );
  return { data: page.rows.map(apiTemplate), nextCursor: page.nextCursor };
}

export async function getApiTemplate(organizationId: string, id: string) {
  const template = await findTemplate(organizationId, id);
  if (!template) throw notFound();
  return apiTemplate(template);
}

/** Where a field of the create form sits in Meta's shape, for messages: `bodyExamples[1]` → `components.BODY.example.body_text[0][1]`. */
const FIELD_LOCATIONS: Record<string, string> = {
  name: "name",
  category: "category",
  language: "language",
  headerText: "components.HEADER",
  headerSample: "components.HEADER.sampleId",
  headerExample: "components.HEADER.example.header_text[0]",
  body: "components.BODY",
  footer: "components.FOOTER",
  buttons: "components.BUTTONS",
  codeExpirationMinutes: "components.FOOTER.code_expiration_minutes",
  otpButtonText: "components.BUTTONS.buttons[0].text",
  packageName: "components.BUTTONS.buttons[0].supported_apps[0].package_name",
  signatureHash: "components.BUTTONS.buttons[0].supported_apps[0].signature_hash",
  accountId: "wabaId",
};
const BUTTON_KEYS: Record<string, string> = { text: "text", url: "url", phone: "phone_number", example: "example" };

export function problemLocation(field: string) {
  const button = /^buttons\[(\d+)\]\.(\w+)$/.exec(field);
  if (button) return `components.BUTTONS.buttons[${button[1]}].${BUTTON_KEYS[button[2]!] ?? button[2]}`;
  const example = /^bodyExamples\[(\d+)\]$/.exec(field);
  if (example) return `components.BODY.example.body_text[0][${example[1]}]`;
  return FIELD_LOCATIONS[field] ?? field;
}

export function describeProblems(problems: Problems) {
  return Object.entries(problems)
    .map(([field, message]) => (field === "form" ? message : `${problemLocation(field)}: ${message}`))
    .join("; ");
}

/** The first sentence of the page's "connect an account first" message (the rest is about the page's drafts). */
const NO_ACCOUNT = TEMPLATE_MESSAGES.noAccount.replace(/(?<=\.)\s.*$/s, "");

export async function createApiTemplate(organizationId: string, body: z.output<typeof TemplateCreate>) {
  const input = inputFromMeta(body);
  const header = body.components.find((c) => c.type === "HEADER");
  if (header?.type === "HEADER" && isMediaFormat(header.format) && body.category !== "AUTHENTICATION") {
    const sample = await usableSample(organizationId, header.sampleId);
    if (!sample)
      throw new ApiProblem(
        400,
        "invalid_request",
        "components.HEADER.sampleId: No sample with this id: upload the file with POST /api/v1/template-samples and give the id it answers (each sample serves one template, and an unused one is deleted after 24 hours).",
      );
    input.headerSample = { id: sample.id, fileName: sample.fileName, contentType: sample.contentType, size: sample.size };
  }
  const problems = templateProblems(input);
  if (Object.keys(problems).length) throw new ApiProblem(400, "invalid_request", describeProblems(problems));

  const accounts = await db()
    .select({ id: whatsappAccounts.id, wabaId: whatsappAccounts.wabaId })
    .from(whatsappAccounts)
    .where(and(eq(whatsappAccounts.organizationId, organizationId), eq(whatsappAccounts.status, "connected")))
    .orderBy(whatsappAccounts.connectedAt);
  if (!accounts.length) throw new ApiProblem(409, "no_whatsapp_account", NO_ACCOUNT);
  const known = accounts.map((a) => a.wabaId).join(", ");
  let accountId: string | undefined;
  if (body.wabaId !== undefined) {
    accountId = accounts.find((a) => a.wabaId === body.wabaId)?.id;
    if (!accountId) throw new ApiProblem(400, "invalid_request", `wabaId: ${TEMPLATE_MESSAGES.unknownAccount} Yours: ${known}.`);
  }

  const result = await createTemplate(actor(organizationId), input, { accountId, submit: true });
  if (!result.ok) {
    const { problems: refused } = result;
    if (refused.form === TEMPLATE_MESSAGES.noAccount) throw new ApiProblem(409, "no_whatsapp_account", NO_ACCOUNT);
    if (refused.accountId) throw new ApiProblem(400, "invalid_request", `wabaId: ${refused.accountId} Send wabaId, one of ${known}.`);
    // The content was checked above: a problem with the name now is a name already in use.
    if (refused.name) throw new ApiProblem(409, "template_exists", refused.name);
    throw new ApiProblem(400, "invalid_request", describeProblems(refused));
  }
  if (result.submitError)
    throw new ApiProblem(
      502,
      "meta_error",
      `Meta did not accept the template: ${result.submitError}. It is saved in Jumbe as a draft (id ${result.template.id}): correct it on the Templates page and submit it again, or delete it (DELETE /api/v1/templates/${result.template.id}) before creating it again.`,
    );
  return apiTemplate(result.template);
}

/** POST /api/v1/template-samples: a sample's bytes, checked as the form checks a chosen file, stored for a template to come. */
export async function createApiTemplateSample(organizationId: string, file: { contentType: string; bytes: Buffer }, fileName?: string) {
  const format = formatOfType(file.contentType)!;
  const rule = MEDIA_SAMPLES[format];
  if (file.bytes.length === 0) throw new ApiProblem(400, "invalid_request", "The body is empty: send the file's bytes.");
  if (file.bytes.length > rule.maxBytes)
    throw new ApiProblem(
      413,
      "payload_too_large",
      `The file is ${formatBytes(file.bytes.length)}; a ${file.contentType} sample can be up to ${formatBytes(rule.maxBytes)}.`,
    );
  if (!contentMatchesType(file.contentType, file.bytes))
    // The bytes are not of the declared type: a file of a type this endpoint does not take (415, as documented).
    throw new ApiProblem(415, "unsupported_media_type", sampleContentProblem(file.contentType));
  const stored = await storeSample(organizationId, { fileName: fileName ?? "", contentType: file.contentType, bytes: file.bytes });
  return { id: stored.id, contentType: stored.contentType, size: stored.size };
}

export async function deleteApiTemplate(organizationId: string, id: string) {
  const result = await deleteTemplate(actor(organizationId), id);
  if (result.ok) return undefined;
  if (result.status === 404) throw notFound();
  throw new ApiProblem(502, "meta_error", `${result.message.replace(/\.$/, "")}. The template is kept, here and at Meta.`);
}
