import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { templateMedia } from "../../infrastructure/db/schema";
import {
  contentMatchesType,
  formatBytes,
  isMediaFormat,
  sampleContentProblem,
  sampleProblem,
  SAMPLE_MAX_BYTES,
  type HeaderSample,
  type TemplateInput,
} from "../../../lib/templates";
import { chosenFile, SAMPLE_FIELD } from "../../../lib/template-form";
import { m } from "~/paraglide/messages";

/**
 * The sample files of media headers (decision 019): kept in the database (every instance sees
 * them), checked by the same rules as the form's, uploaded to Meta when a template is submitted.
 * Every query names the organisation: another tenant's sample id finds nothing.
 */

/** A handle Meta issued this long ago is used again; an older one is replaced by a new upload. */
export const HANDLE_REUSE_MS = 24 * 60 * 60 * 1000;
/** Samples uploaded for a template that was never saved are deleted after this long (housekeeping). */
export const UNATTACHED_SAMPLE_HOURS = 24;

export interface SampleFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

export const SAMPLE_MESSAGES = {
  get notAFile() {
    return m.templates_sample_not_a_file();
  },
};

/** The route that shows a template's sample (tenant and permission checked there). */
export const sampleUrl = (templateId: string) => `/templates/${templateId}/sample`;

const info = (row: { id: string; fileName: string; contentType: string; size: number }, url?: string): HeaderSample => ({
  id: row.id,
  fileName: row.fileName,
  contentType: row.contentType,
  size: row.size,
  url,
});

/** A file name fit to store and show: no path, no control characters, at most 200 characters. */
export function cleanFileName(name: string, contentType: string) {
  const base = name.split(/[\\/]/).pop() ?? "";
  const clean = [...base]
    .filter((c) => c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f)
    .join("")
    .trim()
    .slice(0, 200);
  return (
    clean || `sample.${{ "image/jpeg": "jpg", "image/png": "png", "video/mp4": "mp4", "application/pdf": "pdf" }[contentType] ?? "bin"}`
  );
}

/** Stores a checked sample not yet belonging to a template; answers its id. */
export async function storeSample(organizationId: string, file: SampleFile) {
  if (file.bytes.length > SAMPLE_MAX_BYTES) throw new Error(`sample over ${formatBytes(SAMPLE_MAX_BYTES)} reached storeSample`);
  const [row] = await db()
    .insert(templateMedia)
    .values({
      organizationId,
      fileName: cleanFileName(file.fileName, file.contentType),
      contentType: file.contentType,
      size: file.bytes.length,
      bytes: file.bytes,
    })
    .returning({
      id: templateMedia.id,
      fileName: templateMedia.fileName,
      contentType: templateMedia.contentType,
      size: templateMedia.size,
    });
  return row!;
}

const isUuid = (value: string | undefined): value is string =>
  !!value && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

const columns = {
  id: templateMedia.id,
  templateId: templateMedia.templateId,
  fileName: templateMedia.fileName,
  contentType: templateMedia.contentType,
  size: templateMedia.size,
  metaHandle: templateMedia.metaHandle,
  uploadedAt: templateMedia.uploadedAt,
};

/**
 * A sample the tenant may use for a template: one not attached to any template yet, or the one
 * already attached to this template (`templateId`). Undefined otherwise (another tenant's, another
 * template's, unknown).
 */
export async function usableSample(organizationId: string, id: string | undefined, templateId?: string) {
  if (!isUuid(id)) return undefined;
  const [row] = await db()
    .select(columns)
    .from(templateMedia)
    .where(
      and(
        eq(templateMedia.organizationId, organizationId),
        eq(templateMedia.id, id),
        templateId ? or(isNull(templateMedia.templateId), eq(templateMedia.templateId, templateId)) : isNull(templateMedia.templateId),
      ),
    );
  return row;
}

/** A template's sample without its bytes. */
export async function templateSample(organizationId: string, templateId: string) {
  const [row] = await db()
    .select(columns)
    .from(templateMedia)
    .where(and(eq(templateMedia.organizationId, organizationId), eq(templateMedia.templateId, templateId)));
  return row;
}

/** A template's sample with its bytes (the sample route, the upload to Meta). */
export async function templateSampleFile(organizationId: string, templateId: string) {
  const [row] = await db()
    .select({ ...columns, bytes: templateMedia.bytes })
    .from(templateMedia)
    .where(and(eq(templateMedia.organizationId, organizationId), eq(templateMedia.templateId, templateId)));
  return row;
}

/**
 * A sample's bytes as a response (the tenant's and the administrator's sample routes): its own
 * content type, never sniffed, and a sandbox so a PDF or video opened on its own runs nothing of
 * the page's; never stored (`private, no-store`), since the bytes belong to one tenant and must not
 * outlive a sign-out in the browser's cache. No sample: 404.
 */
export function sampleFileResponse(sample: SampleFile | undefined) {
  if (!sample)
    return new Response("Sample not found.", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  const name = sample.fileName.replace(/[^\w.-]+/g, "_");
  return new Response(new Uint8Array(sample.bytes), {
    headers: {
      "Content-Type": sample.contentType,
      "Content-Length": String(sample.bytes.length),
      "Cache-Control": "private, no-store",
      "Content-Disposition": `inline; filename="${name}"`,
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
    },
  });
}

/** The form's values with a stored template's sample (its preview shown from the sample route). */
export async function withStoredSample(
  organizationId: string,
  templateId: string,
  input: TemplateInput,
  url = sampleUrl(templateId),
): Promise<TemplateInput> {
  if (!isMediaFormat(input.headerFormat)) return input;
  const sample = await templateSample(organizationId, templateId);
  return sample ? { ...input, headerSample: info(sample, url) } : input;
}

/**
 * The header's sample of a posted template form, checked and stored: a file chosen now is checked
 * by the form's rules and, when fine, stored at once (so a form sent back for another problem
 * keeps it without a new upload); otherwise the kept sample the form names, if the tenant may use
 * it. Answers the values with the sample as the server knows it, and its problem if any.
 */
export async function readFormSample(
  organizationId: string,
  form: FormData,
  values: TemplateInput,
  templateId?: string,
): Promise<{ values: TemplateInput; problem?: string }> {
  const raw = form.get(SAMPLE_FIELD);
  if (typeof raw === "string" && raw !== "") return { values: { ...values, headerSample: undefined }, problem: SAMPLE_MESSAGES.notAFile };
  if (!isMediaFormat(values.headerFormat) || values.category === "AUTHENTICATION")
    return { values: { ...values, headerSample: undefined } };
  const file = chosenFile(form);
  if (file) {
    const chosen: HeaderSample = { fileName: cleanFileName(file.name, file.type), contentType: file.type, size: file.size };
    const problem = sampleProblem(values.headerFormat, chosen);
    if (problem) return { values: { ...values, headerSample: undefined }, problem };
    const bytes = Buffer.from(await file.arrayBuffer());
    if (!contentMatchesType(file.type, bytes))
      return { values: { ...values, headerSample: undefined }, problem: sampleContentProblem(file.type) };
    const stored = await storeSample(organizationId, { fileName: file.name, contentType: file.type, bytes });
    return { values: { ...values, headerSample: info(stored) } };
  }
  const kept = await usableSample(organizationId, values.headerSample?.id, templateId);
  const url = kept?.templateId ? sampleUrl(kept.templateId) : undefined;
  return { values: { ...values, headerSample: kept ? info(kept, url) : undefined } };
}

/**
 * Makes the sample the template's own (replacing one it had). The sample must be the tenant's and
 * free or already the template's; answers false otherwise.
 */
export async function attachSample(organizationId: string, sampleId: string, templateId: string) {
  const sample = await usableSample(organizationId, sampleId, templateId);
  if (!sample) return false;
  if (sample.templateId === templateId) return true;
  await queryRows(
    db(),
    sql`delete from template_media where organization_id = ${organizationId} and template_id = ${templateId} and id <> ${sampleId}::uuid`,
  );
  await queryRows(
    db(),
    sql`update template_media set template_id = ${templateId} where id = ${sampleId}::uuid and organization_id = ${organizationId} and template_id is null`,
  );
  return true;
}

/** A template no longer has a media header: its sample goes. */
export async function dropSample(organizationId: string, templateId: string) {
  await db()
    .delete(templateMedia)
    .where(and(eq(templateMedia.organizationId, organizationId), eq(templateMedia.templateId, templateId)));
}

/** Copies a template's sample to its copy (Meta's handle included: handles belong to the app). */
export async function copySample(organizationId: string, fromTemplateId: string, toTemplateId: string) {
  await queryRows(
    db(),
    sql`
    insert into template_media (organization_id, template_id, file_name, content_type, size, bytes, meta_handle, uploaded_at)
    select organization_id, ${toTemplateId}::uuid, file_name, content_type, size, bytes, meta_handle, uploaded_at
    from template_media where organization_id = ${organizationId} and template_id = ${fromTemplateId}::uuid`,
  );
}

/** Keeps Meta's handle for a template's sample, to use again while it is fresh. */
export async function rememberHandle(sampleId: string, handle: string, at: Date) {
  await db().update(templateMedia).set({ metaHandle: handle, uploadedAt: at }).where(eq(templateMedia.id, sampleId));
}

/** Housekeeping: samples uploaded for templates that were never saved. */
export async function deleteUnattachedSamples() {
  const cutoff = new Date(Date.now() - UNATTACHED_SAMPLE_HOURS * 60 * 60 * 1000);
  const deleted = await db()
    .delete(templateMedia)
    .where(and(isNull(templateMedia.templateId), lt(templateMedia.createdAt, cutoff)))
    .returning({ id: templateMedia.id });
  return deleted.length;
}
