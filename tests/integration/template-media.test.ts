import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { and, eq, sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { activityLogs, messageTemplates, templateMedia } from "~/.server/infrastructure/db/schema";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { handleApiV1 } from "~/.server/adapters/api-v1/handle";
import { openApiDocument } from "~/.server/adapters/api-v1/openapi";
import { BODY_LIMITS, bodyLimitFor, limitRequestBodies } from "~/.server/infrastructure/http/body-limit";
import { copyTemplate, deleteTemplate, updateTemplate, templateInput, type Actor } from "~/.server/domains/templates/manage";
import { findTemplate } from "~/.server/domains/templates/queries";
import { syncOrganisationTemplates } from "~/.server/domains/templates/sync";
import { deleteUnattachedSamples, withStoredSample } from "~/.server/domains/templates/media";
import { sweepExpiredData } from "~/.server/domains/housekeeping/sweep";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { renderTemplate } from "~/lib/templates";
import * as editPage from "~/routes/app/templates/edit";
import * as samplePage from "~/routes/app/templates/sample";
import * as keyApi from "~/routes/api/developer.api-key";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { APP, getRequest, routeArgs, run } from "../support/http";
import { startGraphSandbox } from "../support/sandbox-waba";
import { startReceiver } from "../support/whatsapp";

/**
 * Media headers (decision 019): the sample travels with the form, is kept in the database, is
 * uploaded to Meta's Resumable Upload API at submission and its handle reaches Meta in the
 * header's example; checks before Meta, failures in Meta's words, tenants apart.
 */

let graph: Awaited<ReturnType<typeof startGraphSandbox>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  graph = await startGraphSandbox({ webhookUrl: receiver.url });
});
afterAll(async () => {
  await graph.close();
  await receiver.close();
});
beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: APP, GRAPH_API_BASE_URL: graph.graphBase, GRAPH_API_TIMEOUT_MS: "5000" }));
  graph.sandbox.reset();
});

const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(300, 1)]);
const PDF = Buffer.from("%PDF-1.4\n% a menu\n");

async function tenant(name: string, connect = true) {
  const user = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(user.email, user.password);
  const connected = connect ? await graph.connect(user.organization.id, name) : undefined;
  const actor: Actor = { organizationId: user.organization.id, userId: user.user.id };
  return { user, cookie, actor, wabaId: connected?.wabaId };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** The template form as a browser posts it, JavaScript or not: multipart, with the file input. */
function templateForm(fields: Record<string, string>, file?: { bytes: Buffer; name: string; type: string } | string) {
  const form = new FormData();
  const all = {
    name: "season_launch",
    category: "MARKETING",
    language: "en",
    headerFormat: "IMAGE",
    body: "Our new season is here: come and see.",
    footer: "",
    buttonCount: "0",
    intent: "submit",
    ...fields,
  };
  for (const [key, value] of Object.entries(all)) form.append(key, value);
  if (typeof file === "string") form.append("headerFile", file);
  else if (file) form.append("headerFile", new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
  else form.append("headerFile", new Blob([], { type: "application/octet-stream" }), "");
  return form;
}

/** What the template form's action answers a refused post: Conform's reply and the values read back. */
interface EditAnswer {
  result: { error: Record<string, string[]> };
  values: Record<string, unknown> & { headerSample?: { id: string } };
}

async function post(
  t: Tenant,
  path: string,
  form: FormData,
  params: Record<string, string> = {},
): Promise<{ status: number; location: string | null; data: EditAnswer }> {
  const request = new Request(`${APP}${path}`, { method: "POST", body: form, headers: { cookie: t.cookie, origin: APP } });
  let value: unknown;
  try {
    value = await editPage.action(routeArgs(request, params));
  } catch (thrown) {
    value = thrown;
  }
  if (value instanceof Response) return { status: value.status, location: value.headers.get("location"), data: undefined as never };
  const wrapped = value as { type?: string; data?: EditAnswer; init?: { status?: number } };
  if (wrapped?.type === "DataWithResponseInit") return { status: wrapped.init?.status ?? 200, location: null, data: wrapped.data! };
  return { status: 200, location: null, data: value as EditAnswer };
}

async function sample(t: Tenant, id: string) {
  const response = (await samplePage.loader(routeArgs(getRequest(`/templates/${id}/sample`, { cookie: t.cookie }), { id }))) as Response;
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

const templatesOf = (organizationId: string) =>
  db().select().from(messageTemplates).where(eq(messageTemplates.organizationId, organizationId));
const samplesOf = (organizationId: string) => db().select().from(templateMedia).where(eq(templateMedia.organizationId, organizationId));
const graphSteps = () => graph.sandbox.calls().map((c) => c.step);

async function review() {
  await graph.sandbox.reviewTemplatesNow();
  await graph.sandbox.flushWebhooks();
  await drainJobs();
}

describe("a template with an image header", () => {
  it("is submitted end to end: the sample is stored, uploaded at submission, and its handle reaches Meta", async () => {
    const t = await tenant("Picha Traders");
    const sent = await post(t, "/templates/new", templateForm({}, { bytes: PNG, name: "poster.png", type: "image/png" }));
    expect(sent.status, JSON.stringify(sent.data)).toBe(302);
    const [template] = await templatesOf(t.actor.organizationId);
    expect(template).toMatchObject({ status: "pending", name: "season_launch" });

    const [upload] = graph.sandbox.uploads();
    expect(upload).toMatchObject({ fileName: "poster.png", fileType: "image/png", fileLength: PNG.length, fileOffset: PNG.length });
    const [atMeta] = graph.sandbox.templates(t.wabaId);
    const header = atMeta!.components[0] as { format: string; example: { header_handle: string[] } };
    expect(header.format).toBe("IMAGE");
    // The sandbox turns the handle it issued into its example URL: the handle Jumbe sent was that upload's.
    expect(header.example.header_handle[0]).toMatch(/\/sandbox\/meta\/uploads\/[\w-]+$/);
    expect((template!.components[0] as { example: { header_handle: string[] } }).example.header_handle[0]).toBe(upload!.handle);
    expect(graphSteps()).toEqual(expect.arrayContaining(["upload.create", "upload.send", "template.create"]));
    expect(graphSteps().indexOf("upload.send")).toBeLessThan(graphSteps().indexOf("template.create"));

    const [stored] = await samplesOf(t.actor.organizationId);
    expect(stored).toMatchObject({
      templateId: template!.id,
      fileName: "poster.png",
      contentType: "image/png",
      size: PNG.length,
      metaHandle: upload!.handle,
    });
    expect(stored!.bytes.equals(PNG)).toBe(true);
    const log = await db().select().from(activityLogs).where(eq(activityLogs.organizationId, t.actor.organizationId));
    expect(log.find((l) => l.action === "Template sample uploaded to Meta")?.details).toBe(
      "season_launch: poster.png (image/png, 316 bytes)",
    );

    // The preview shows the sample from the sample route; Meta's approval arrives as for any template.
    const input = await withStoredSample(t.actor.organizationId, template!.id, templateInput(template!));
    expect(renderTemplate(input).media).toEqual({ format: "IMAGE", src: `/templates/${template!.id}/sample`, fileName: "poster.png" });
    await review();
    expect(await findTemplate(t.actor.organizationId, template!.id)).toMatchObject({ status: "approved" });
  });

  it("refuses a wrong type, a renamed file, an oversize file, no file and a non-file before calling Meta, keeping what was typed", async () => {
    const t = await tenant("Makosa Ltd");
    const cases: [FormData, string][] = [
      [
        templateForm({}, { bytes: PDF, name: "menu.pdf", type: "application/pdf" }),
        "An image header's sample must be JPEG or PNG; this file is application/pdf.",
      ],
      [
        templateForm({}, { bytes: PDF, name: "fake.png", type: "image/png" }),
        "The file's contents are not a PNG image, whatever its name says. Choose the file again.",
      ],
      [
        templateForm({}, { bytes: Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]), name: "big.png", type: "image/png" }),
        "The file is 5 MB; an image sample can be up to 5 MB.",
      ],
      [templateForm({}), "Choose a sample image (JPEG or PNG, up to 5 MB.): Meta reviews media headers with a sample."],
      [templateForm({}, "not a file"), "Send the sample as a file (a multipart/form-data upload), not as text."],
    ];
    for (const [form, message] of cases) {
      const answer = await post(t, "/templates/new", form);
      expect(answer.status, message).toBe(400);
      expect(answer.data.result.error.headerSample).toEqual([message]);
      expect(answer.data.values).toMatchObject({
        name: "season_launch",
        body: "Our new season is here: come and see.",
        headerFormat: "IMAGE",
      });
    }
    expect(await templatesOf(t.actor.organizationId)).toEqual([]);
    expect(await samplesOf(t.actor.organizationId)).toEqual([]);
    expect(graphSteps().filter((s) => s !== "oauth")).toEqual([]);
    // Authentication templates take no media header.
    const auth = await post(t, "/templates/new", templateForm({ category: "AUTHENTICATION", otpButtonText: "Copy code" }));
    expect(auth.status).toBe(400);
    expect(auth.data.result.error[""]![0]).toMatch(/^Authentication templates take no media header/);
  });

  it("keeps a good sample when another field has a problem, so the form sent again needs no new upload", async () => {
    const t = await tenant("Kumbuka Ltd");
    const first = await post(t, "/templates/new", templateForm({ body: "" }, { bytes: PNG, name: "poster.png", type: "image/png" }));
    expect(first.status).toBe(400);
    expect(first.data.result.error).toEqual({ body: ["Enter the message body."] });
    const kept = first.data.values.headerSample!;
    expect(kept).toMatchObject({ id: expect.any(String), fileName: "poster.png", contentType: "image/png", size: PNG.length });
    const again = await post(
      t,
      "/templates/new",
      templateForm({ headerSampleId: kept.id, headerSampleName: "forged.png", headerSampleType: "image/png", headerSampleSize: "1" }),
    );
    expect(again.status, JSON.stringify(again.data)).toBe(302);
    const [template] = await templatesOf(t.actor.organizationId);
    expect(await samplesOf(t.actor.organizationId)).toEqual([
      expect.objectContaining({ id: kept.id, templateId: template!.id, fileName: "poster.png" }),
    ]);
    // Another tenant cannot use that sample by its id.
    const other = await tenant("Jirani Ltd");
    const stolen = await post(other, "/templates/new", templateForm({ headerSampleId: kept.id }));
    expect(stolen.status).toBe(400);
    expect(stolen.data.result.error.headerSample![0]).toMatch(/^Choose a sample image/);
  });

  it("keeps Meta's words on the draft when the upload fails, and resumes an upload cut short", async () => {
    const t = await tenant("Hitilafu Ltd");
    graph.sandbox.injectFault({ step: "upload.create", error: { code: 100, message: "Invalid parameter", type: "OAuthException" } });
    const failed = await post(t, "/templates/new", templateForm({}, { bytes: PNG, name: "poster.png", type: "image/png" }));
    expect(failed.status).toBe(302);
    const [draft] = await templatesOf(t.actor.organizationId);
    expect(draft).toMatchObject({ status: "draft", metaTemplateId: null });
    expect(draft!.lastError).toMatch(
      /^Meta did not accept it: Meta answered upload\.create: \(#100\) Invalid parameter \[fbtrace_id \w+\]$/,
    );
    expect(graph.sandbox.templates(t.wabaId)).toEqual([]);

    // Submitting the draft again uploads the kept sample; a send cut short resumes from Meta's offset.
    await db().update(templateMedia).set({ fileName: "poster-cut-once.png" }).where(eq(templateMedia.templateId, draft!.id));
    const resubmitted = await updateTemplate(
      t.actor,
      draft!.id,
      {
        ...templateInput(draft!),
        headerSample: (await withStoredSample(t.actor.organizationId, draft!.id, templateInput(draft!))).headerSample,
      },
      { submit: true },
    );
    expect(resubmitted).toMatchObject({ ok: true, template: { status: "pending" } });
    expect((resubmitted as { submitError?: string }).submitError).toBeUndefined();
    const uploads = graph.sandbox.uploads();
    expect(uploads.at(-1)).toMatchObject({
      fileName: "poster-cut-once.png",
      fileOffset: PNG.length,
      handle: expect.stringMatching(/^4::/),
    });
    expect(graphSteps()).toEqual(expect.arrayContaining(["upload.send", "upload.status", "upload.send", "template.create"]));
  });

  it("uploads again when resubmitting after a rejection with an old handle, not with a fresh one", async () => {
    const t = await tenant("Kataa Ltd");
    await post(t, "/templates/new", templateForm({ name: "reject_this_poster" }, { bytes: PNG, name: "poster.png", type: "image/png" }));
    const [template] = await templatesOf(t.actor.organizationId);
    await review();
    expect(await findTemplate(t.actor.organizationId, template!.id)).toMatchObject({ status: "rejected" });
    const values = (id: string) =>
      post(
        t,
        `/templates/${id}/edit`,
        templateForm({ name: "reject_this_poster", body: "Our new season is here: come in and see.", headerSampleId: "" }),
        { id },
      );

    // Fresh handle: the edit goes to Meta with it, no new upload. The kept sample needs no new file.
    const [stored] = await samplesOf(t.actor.organizationId);
    const edit = await values(template!.id);
    expect(edit.status, JSON.stringify(edit.data)).toBe(400);
    const withKept = await post(
      t,
      `/templates/${template!.id}/edit`,
      templateForm({ name: "reject_this_poster", body: "Our new season is here: come in and see.", headerSampleId: stored!.id }),
      { id: template!.id },
    );
    expect(withKept.status, JSON.stringify(withKept.data)).toBe(302);
    expect(graph.sandbox.uploads()).toHaveLength(1);
    expect(await findTemplate(t.actor.organizationId, template!.id)).toMatchObject({ status: "pending" });

    // Rejected again (a second decision within the same second reads as a repeat of the first, so set here).
    await graph.sandbox.setTemplateStatus(graph.sandbox.templates(t.wabaId)[0]!.id, "REJECTED", { silent: true });
    await db().update(messageTemplates).set({ status: "rejected" }).where(eq(messageTemplates.id, template!.id));
    await db()
      .update(templateMedia)
      .set({ uploadedAt: sql`now() - interval '2 days'` })
      .where(eq(templateMedia.id, stored!.id));
    const again = await post(
      t,
      `/templates/${template!.id}/edit`,
      templateForm({ name: "reject_this_poster", body: "Our new season is here: come and look.", headerSampleId: stored!.id }),
      { id: template!.id },
    );
    expect(again.status, JSON.stringify(again.data)).toBe(302);
    expect(graph.sandbox.uploads()).toHaveLength(2);
    const [renewed] = await samplesOf(t.actor.organizationId);
    expect(renewed!.metaHandle).toBe(graph.sandbox.uploads()[1]!.handle);
    expect(graphSteps().filter((s) => s === "template.edit")).toHaveLength(2);
  });

  it("copies the sample with the template, and deletes it with the template", async () => {
    const t = await tenant("Nakala Ltd");
    await post(t, "/templates/new", templateForm({ intent: "draft" }, { bytes: PNG, name: "poster.png", type: "image/png" }));
    const [template] = await templatesOf(t.actor.organizationId);
    const copy = await copyTemplate(t.actor, template!.id);
    const samples = await samplesOf(t.actor.organizationId);
    expect(samples.map((s) => s.templateId).sort()).toEqual([template!.id, copy!.id].sort());
    expect(samples.every((s) => s.bytes.equals(PNG))).toBe(true);
    expect(await deleteTemplate(t.actor, template!.id)).toMatchObject({ ok: true });
    expect((await samplesOf(t.actor.organizationId)).map((s) => s.templateId)).toEqual([copy!.id]);
    // A sample no template took is deleted by housekeeping after a day.
    await db()
      .insert(templateMedia)
      .values({
        organizationId: t.actor.organizationId,
        fileName: "x.png",
        contentType: "image/png",
        size: 1,
        bytes: PNG,
        createdAt: new Date(Date.now() - 25 * 3600_000),
      });
    expect((await sweepExpiredData()).templateSamples).toBe(1);
    expect(await deleteUnattachedSamples()).toBe(0);
    expect(await samplesOf(t.actor.organizationId)).toHaveLength(1);
  });

  it("shows the sample only to its tenant, never kept in the browser's cache", async () => {
    const t = await tenant("Siri Ltd", false);
    await post(t, "/templates/new", templateForm({ intent: "draft" }, { bytes: PNG, name: "poster.png", type: "image/png" }));
    const [template] = await templatesOf(t.actor.organizationId);
    const own = await sample(t, template!.id);
    expect(own.status).toBe(200);
    expect(own.headers.get("content-type")).toBe("image/png");
    // Gone with the sign-out: a tenant's file is not kept by the browser (issue 38, item 10b).
    expect(own.headers.get("cache-control")).toBe("private, no-store");
    expect(own.bytes.equals(PNG)).toBe(true);
    const other = await tenant("Mgeni Ltd", false);
    expect((await sample(other, template!.id)).status).toBe(404);
    expect((await sample(other, "not-a-uuid")).status).toBe(404);
    // A browser opening it signed out is sent to sign in (a script is told 401, as every download answers).
    const anonymous = await run(samplePage.loader, getRequest(`/templates/${template!.id}/sample`, { headers: { accept: "text/html" } }));
    expect(anonymous.status).toBe(302);
    expect(anonymous.location).toBe(`/login?from=${encodeURIComponent(`/templates/${template!.id}/sample`)}`);
  });

  it("imports a template made at Meta with a media header, keeping Meta's example URL, shown as a placeholder", async () => {
    const t = await tenant("Kutoka Meta Ltd");
    graph.sandbox.createTemplateAtMeta(t.wabaId!, {
      name: "menu_of_the_week",
      language: "en",
      category: "MARKETING",
      components: [
        { type: "HEADER", format: "DOCUMENT", example: { header_handle: ["https://scontent.example/menu.pdf"] } },
        { type: "BODY", text: "This week's menu." },
      ],
    });
    const [outcome] = await syncOrganisationTemplates(t.actor.organizationId);
    expect(outcome).toMatchObject({ imported: 1 });
    const [imported] = await templatesOf(t.actor.organizationId);
    const input = await withStoredSample(t.actor.organizationId, imported!.id, templateInput(imported!));
    expect(input).toMatchObject({
      headerFormat: "DOCUMENT",
      headerExampleUrl: "https://scontent.example/menu.pdf",
    });
    expect(input.headerSample).toBeUndefined();
    expect(renderTemplate(input).media).toEqual({ format: "DOCUMENT", src: undefined, fileName: undefined });
  });
});

describe("request bodies", () => {
  it("raise the limit for the template create and edit pages only; over it answers 413 with the product's page", async () => {
    expect(bodyLimitFor("/templates/new")).toBe(BODY_LIMITS.templateForm);
    expect(bodyLimitFor("/templates/new.data")).toBe(BODY_LIMITS.templateForm);
    expect(bodyLimitFor("/Templates/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/edit.data")).toBe(BODY_LIMITS.templateForm);
    expect(bodyLimitFor("/api/v1/template-samples")).toBe(BODY_LIMITS.templateSample);
    for (const path of ["/templates", "/templates/x/edit/more", "/templates/x/sample", "/profile", "/api/v1/templates", "/preview"])
      expect(bodyLimitFor(path), path).toBe(BODY_LIMITS.default);
    expect(BODY_LIMITS.templateForm).toBe(17 * 1024 * 1024);

    const app = express();
    app.use(limitRequestBodies());
    app.use((req, res) => void req.resume().on("end", () => res.status(200).send("read")));
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const send = (path: string, size: number) =>
        fetch(`${origin}${path}`, {
          method: "POST",
          headers: { "content-type": "multipart/form-data; boundary=x", accept: "text/html" },
          body: new Uint8Array(size),
        });
      expect((await send("/templates/new", 2 * 1024 * 1024)).status).toBe(200);
      const over = await send("/templates/new", BODY_LIMITS.templateForm + 1);
      expect(over.status).toBe(413);
      expect(over.headers.get("content-type")).toMatch(/text\/html/);
      expect(await over.text()).toContain("Request body too large.");
      expect((await send("/templates", 2 * 1024 * 1024)).status).toBe(413);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("the public API", () => {
  async function apiTenant(name: string) {
    const t = await tenant(name);
    const read = await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie: t.cookie }));
    return { ...t, key: read.data.key as string };
  }
  const call = async (key: string, method: string, path: string, body?: BodyInit, type?: string) => {
    const response = await handleApiV1(
      new Request(`${APP}${path}`, {
        method,
        body,
        headers: { Authorization: `Bearer ${key}`, ...(type ? { "Content-Type": type } : {}) },
      }),
    );
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const create = (sampleId: string, format = "IMAGE") => ({
    name: "api_poster",
    language: "en",
    category: "MARKETING",
    components: [
      { type: "HEADER", format, sampleId },
      { type: "BODY", text: "Our new season is here." },
    ],
  });

  it("uploads a sample as the raw body, then creates an image template with its id, submitted with Meta's handle", async () => {
    const t = await apiTenant("API Picha Ltd");
    const uploaded = await call(t.key, "POST", "/api/v1/template-samples?fileName=poster.png", new Uint8Array(PNG), "image/png");
    expect(uploaded).toEqual({ status: 201, body: { id: expect.any(String), contentType: "image/png", size: PNG.length } });
    const made = await call(t.key, "POST", "/api/v1/templates", JSON.stringify(create(uploaded.body.id)), "application/json");
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ name: "api_poster", status: "pending" });
    expect(made.body.components[0]).toEqual({
      type: "HEADER",
      format: "IMAGE",
      example: { header_handle: [graph.sandbox.uploads()[0]!.handle] },
    });
    expect(await samplesOf(t.actor.organizationId)).toEqual([
      expect.objectContaining({ templateId: made.body.id, fileName: "poster.png" }),
    ]);
    // A sample serves one template.
    const twice = await call(
      t.key,
      "POST",
      "/api/v1/templates",
      JSON.stringify({ ...create(uploaded.body.id), name: "api_poster_2" }),
      "application/json",
    );
    expect(twice.status).toBe(400);
    expect(twice.body.message).toMatch(/^components\.HEADER\.sampleId: No sample with this id/);
  });

  it("refuses a wrong type, a renamed file, an oversize or empty body, and another tenant's sample", async () => {
    const t = await apiTenant("API Makosa Ltd");
    expect(await call(t.key, "POST", "/api/v1/template-samples", new Uint8Array(PNG), "image/gif")).toMatchObject({
      status: 415,
      body: { code: "unsupported_media_type" },
    });
    // A renamed file is a type the endpoint does not take: 415, as documented (decision 052).
    expect(await call(t.key, "POST", "/api/v1/template-samples", new Uint8Array(PDF), "image/png")).toMatchObject({
      status: 415,
      body: {
        code: "unsupported_media_type",
        message: "The file's contents are not a PNG image, whatever its name says. Choose the file again.",
      },
    });
    expect(
      await call(
        t.key,
        "POST",
        "/api/v1/template-samples",
        new Uint8Array(Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)])),
        "image/png",
      ),
    ).toMatchObject({
      status: 413,
      body: { code: "payload_too_large", message: "The file is 5 MB; a image/png sample can be up to 5 MB." },
    });
    expect((await call(t.key, "POST", "/api/v1/template-samples", undefined, "application/pdf")).status).toBe(400);
    expect(await samplesOf(t.actor.organizationId)).toEqual([]);

    const pdf = await call(t.key, "POST", "/api/v1/template-samples", new Uint8Array(PDF), "application/pdf");
    const mismatch = await call(t.key, "POST", "/api/v1/templates", JSON.stringify(create(pdf.body.id)), "application/json");
    expect(mismatch).toMatchObject({
      status: 400,
      body: { message: "components.HEADER.sampleId: An image header's sample must be JPEG or PNG; this file is application/pdf." },
    });
    const other = await apiTenant("API Jirani Ltd");
    const stolen = await call(other.key, "POST", "/api/v1/templates", JSON.stringify(create(pdf.body.id, "DOCUMENT")), "application/json");
    expect(stolen.status).toBe(400);
    expect(stolen.body.message).toMatch(/No sample with this id/);
    const missing = await call(
      t.key,
      "POST",
      "/api/v1/templates",
      JSON.stringify({
        ...create(pdf.body.id),
        components: [
          { type: "HEADER", format: "VIDEO" },
          { type: "BODY", text: "Hi." },
        ],
      }),
      "application/json",
    );
    expect(missing.body.message).toMatch(/^components\.HEADER\.sampleId: A VIDEO header needs its sample/);
    expect(await templatesOf(t.actor.organizationId)).toEqual([]);
    expect(graphSteps().filter((s) => s !== "oauth")).toEqual([]);
    const doc = openApiDocument() as unknown as { paths: Record<string, { post: { requestBody: { content: object } } }> };
    expect(Object.keys(doc.paths["/api/v1/template-samples"]!.post.requestBody.content)).toEqual([
      "image/jpeg",
      "image/png",
      "video/mp4",
      "application/pdf",
    ]);
    expect(
      await db()
        .select()
        .from(messageTemplates)
        .where(and(eq(messageTemplates.organizationId, other.actor.organizationId))),
    ).toEqual([]);
  });
});
