import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { request as httpRequest, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import express from "express";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { handleApiV1 } from "~/.server/adapters/api-v1/handle";
import { BODY_LIMITS, bodyLimitFor, limitRequestBodies } from "~/.server/infrastructure/http/body-limit";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { queueMessage, type SendRequest } from "~/.server/domains/messaging/queue";
import { decryptSecret } from "~/.server/infrastructure/security/crypto";
import { graphClient } from "~/.server/infrastructure/clients/whatsapp-graph/graph-client";
import { fileStorage, localFileStorage, setFileStorage } from "~/.server/infrastructure/storage";
import * as keyApi from "~/routes/api/developer.api-key";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";
import type { MetaSandbox } from "@jumbe/sandbox/meta/index";
import { refusalOf, metaSandboxForFile } from "../support/meta-harness";

// Media end to end: uploads through the real /api/v1 handler behind Express's body limit (as
// server.ts serves it, streaming), sends by mediaId through the dispatcher to the Meta sandbox,
// and customers' media downloaded through the webhook, its job and the Graph client.

let front: Server;
let base = "";
const storageDir = mkdtempSync(path.join(os.tmpdir(), "jumbe-media-test-"));
const meta = metaSandboxForFile({ appUrl: () => base });

beforeAll(async () => {
  // As in server.ts: the body limits, then the request handed on, unread, as React Router's adapter does.
  const app = express();
  app.use(limitRequestBodies());
  app.all("/{*splat}", async (req, res) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const response = await handleApiV1(
      new Request(`${base}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "DELETE" ? undefined : (Readable.toWeb(req) as ReadableStream),
        duplex: "half",
      } as RequestInit),
    );
    if (res.headersSent) return;
    res
      .status(response.status)
      .set(Object.fromEntries(response.headers))
      .send(Buffer.from(await response.arrayBuffer()));
  });
  front = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  // fetch keeps its connection to this server alive between the test's calls. Client and server share
  // this process's event loop: on a loaded machine the server's 5 s keep-alive timer could close the
  // connection just as fetch, its own timer late, sent the next upload on it (ECONNRESET, seen under load).
  front.keepAliveTimeout = 60_000;
  base = `http://127.0.0.1:${(front.address() as { port: number }).port}`;
  setFileStorage(localFileStorage(storageDir));
});

afterAll(async () => {
  await new Promise((resolve) => front.close(resolve));
  rmSync(storageDir, { recursive: true, force: true });
});

beforeEach(() => {
  // Each test starts with an empty storage, as with an empty database.
  rmSync(storageDir, { recursive: true, force: true });
  setFileStorage(localFileStorage(storageDir));
});

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(user.email, user.password);
  const read = await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }));
  const connection = await meta.graph.connect(user.organization.id, name);
  return { organizationId: user.organization.id, key: read.data.key as string, ...connection };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

// Files whose first bytes are what they say (and some that are not).
const jpeg = (size = 2048) => Buffer.concat([Buffer.from("ffd8ffe000104a46494600010100000100010000", "hex"), randomBytes(size - 20)]);
const png = () => Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), randomBytes(400)]);
const pdf = () => Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
const webp = (size: number) => {
  const bytes = Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WEBPVP8 "), randomBytes(size - 16)]);
  bytes.writeUInt32LE(size - 8, 4);
  return bytes;
};
const gif = () => Buffer.concat([Buffer.from("GIF89a"), randomBytes(200)]);
const exe = () => Buffer.concat([Buffer.from("4d5a90000300000004000000ffff0000", "hex"), randomBytes(300)]);
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

function form(file?: { bytes: Buffer; type?: string; name?: string }, fields: Record<string, string> = {}) {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  if (file)
    body.set("file", new Blob([new Uint8Array(file.bytes)], file.type === undefined ? {} : { type: file.type }), file.name ?? "upload.bin");
  return body;
}

async function api(t: Tenant, method: string, path: string, body?: BodyInit, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, { method, headers: { Authorization: `Bearer ${t.key}`, ...headers }, body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
const upload = (t: Tenant, file?: { bytes: Buffer; type?: string; name?: string }, fields?: Record<string, string>) =>
  api(t, "POST", "/api/v1/media", form(file, fields));

/** Every file under the storage folder, temporary ones included. */
const filesOnDisk = () =>
  existsSync(storageDir) ? readdirSync(storageDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length : 0;
const mediaRows = async () => (await rawQuery<{ n: number }>(`select count(*)::int as n from media_files`))[0]!.n;

/** The inbox's change log for one message. */
const inboxEvents = (messageId: string) =>
  rawQuery<{ kind: string; conversation_id: string }>(`select kind, conversation_id from inbox_events where message_id = $1 order by id`, [
    messageId,
  ]);
const messageRow = async (id: string) => (await rawQuery<Record<string, unknown>>(`select * from messages where id = $1`, [id]))[0]!;

/** What Meta's Graph API serves for a media id: its facts (GET /{media-id}) and its bytes (the URL with the token). */
async function atMeta(t: Tenant, mediaId: string) {
  const token = decryptSecret(t.account.accessTokenEncrypted);
  const auth = { Authorization: `Bearer ${token}` };
  const facts = await (
    await fetch(`${meta.graph.graphBase}/v25.0/${mediaId}?phone_number_id=${t.phoneNumberId}`, { headers: auth })
  ).json();
  const bytes = Buffer.from(await (await fetch(facts.url, { headers: auth })).arrayBuffer());
  return { facts, bytes };
}

describe("POST /api/v1/media", () => {
  it("streams the file to storage and answers its id, type, size, SHA-256 and name; GET reads the same", async () => {
    const t = await tenant("Picha Studio");
    const photo = jpeg(300_000);
    const made = await upload(t, { bytes: photo, type: "image/jpeg", name: "shamba.jpg" });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      mimeType: "image/jpeg",
      size: photo.length,
      sha256: sha256(photo),
      fileName: "shamba.jpg",
      createdAt: expect.any(String),
    });
    expect((await api(t, "GET", `/api/v1/media/${made.body.id}`)).body).toEqual(made.body);
    const [row] = await rawQuery<{ storage_key: string; direction: string }>(`select * from media_files where id = $1`, [made.body.id]);
    expect(row!.direction).toBe("outbound");
    expect(await buffer(await fileStorage().read(row!.storage_key))).toEqual(photo);

    // Without a declared type the bytes decide; a name's path is dropped and never names the stored file.
    const plan = await upload(
      t,
      { bytes: png(), type: "application/octet-stream", name: "../../etc/passwd.png" },
      { messaging_product: "whatsapp" },
    );
    expect(plan.status).toBe(201);
    expect(plan.body).toMatchObject({ mimeType: "image/png", fileName: "passwd.png" });
    const [stored] = await rawQuery<{ storage_key: string }>(`select storage_key from media_files where id = $1`, [plan.body.id]);
    // Under the organisation's own prefix (decision 161), never a name from the request.
    expect(stored!.storage_key).toMatch(new RegExp(`^org/${t.organizationId}/[0-9a-f]{2}/[0-9a-f-]{36}$`));
    expect((await upload(t, { bytes: pdf(), type: "application/pdf", name: "risiti.pdf" })).body.mimeType).toBe("application/pdf");
    expect((await upload(t, { bytes: webp(90 * 1024), type: "image/webp", name: "s.webp" })).body.mimeType).toBe("image/webp");
    expect(filesOnDisk()).toBe(4);
  });

  it("refuses each bad upload with its code and keeps nothing", async () => {
    const t = await tenant("Makosa Ltd");
    const refusals: [string, Promise<{ status: number; body: { code: string; message: string } }>, number, string][] = [
      ["JSON, not a form", api(t, "POST", "/api/v1/media", "{}", { "Content-Type": "application/json" }), 415, "unsupported_media_type"],
      ["no file part", upload(t, undefined, { caption: "hello" }), 400, "invalid_request"],
      ["the file as a text field", upload(t, undefined, { file: "not a file" }), 400, "invalid_request"],
      ["an empty file", upload(t, { bytes: Buffer.alloc(0), type: "image/jpeg", name: "e.jpg" }), 400, "invalid_request"],
      ["a GIF", upload(t, { bytes: gif(), type: "image/gif", name: "a.gif" }), 415, "unsupported_media_type"],
      ["an unknown binary", upload(t, { bytes: exe(), type: "application/octet-stream", name: "a.bin" }), 415, "unsupported_media_type"],
      ["a program dressed as a JPEG", upload(t, { bytes: exe(), type: "image/jpeg", name: "invoice.jpg" }), 415, "unsupported_media_type"],
      ["a PNG sent as a JPEG", upload(t, { bytes: png(), type: "image/jpeg", name: "p.jpg" }), 415, "unsupported_media_type"],
      ["a JPEG sent as a PDF", upload(t, { bytes: jpeg(), type: "application/pdf", name: "p.pdf" }), 415, "unsupported_media_type"],
      ["an image over 5 MB", upload(t, { bytes: jpeg(5 * 1024 * 1024 + 1), type: "image/jpeg", name: "big.jpg" }), 413, "media_too_large"],
      [
        "a static sticker over 100 KB",
        upload(t, { bytes: webp(100 * 1024 + 1), type: "image/webp", name: "s.webp" }),
        413,
        "media_too_large",
      ],
    ];
    for (const [what, answer, status, code] of refusals) {
      const { status: got, body } = await answer;
      expect({ what, status: got, code: body.code }).toEqual({ what, status, code });
      expect(body.message.length, what).toBeGreaterThan(20);
    }
    const mismatch = await upload(t, { bytes: png(), type: "image/jpeg", name: "p.jpg" });
    expect(mismatch.body.message).toBe(
      "The file was sent as image/jpeg, but its bytes are not a JPEG image. Its bytes are a PNG image (image/png). Send the file with its real type.",
    );
    const big = await upload(t, { bytes: jpeg(5 * 1024 * 1024 + 1), type: "image/jpeg", name: "big.jpg" });
    expect(big.body.message).toBe("The file is over 5 MB, the most WhatsApp takes for a JPEG image (image/jpeg).");
    // Two files in one request: the first is not kept either.
    const two = new FormData();
    two.append("file", new Blob([jpeg()], { type: "image/jpeg" }), "a.jpg");
    two.append("file", new Blob([jpeg()], { type: "image/jpeg" }), "b.jpg");
    expect(await api(t, "POST", "/api/v1/media", two)).toMatchObject({ status: 400, body: { code: "invalid_request" } });
    // A form cut short inside the file.
    const cut = await api(
      t,
      "POST",
      "/api/v1/media",
      `--x\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n\r\n${"a".repeat(600)}`,
      {
        "Content-Type": "multipart/form-data; boundary=x",
      },
    );
    expect(cut).toMatchObject({ status: 400, body: { code: "invalid_request" } });
    expect(await mediaRows()).toBe(0);
    expect(filesOnDisk()).toBe(0);
  });

  it("takes up to 100 MB on this path only, refusing a larger body declared or streamed", async () => {
    expect(bodyLimitFor("/api/v1/media")).toBe(BODY_LIMITS.media);
    expect(BODY_LIMITS.media).toBe(100 * 1024 * 1024 + 64 * 1024);
    expect(bodyLimitFor("/api/v1/media/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f")).toBe(BODY_LIMITS.default);
    const t = await tenant("Kubwa Sana Ltd");
    // Declared: refused before a byte is read.
    const declared = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${base}/api/v1/media`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${t.key}`,
          "Content-Type": "multipart/form-data; boundary=x",
          "Content-Length": String(BODY_LIMITS.media + 1),
        },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode!);
        req.destroy();
      });
      req.on("error", reject);
      req.write("--x\r\n");
    });
    expect(declared).toBe(413);

    // Streamed without a length: a document part that goes on past the limit, 1 MB at a time.
    const megabyte = Buffer.alloc(1024 * 1024, 0x41);
    const head = Buffer.from(
      `--x\r\nContent-Disposition: form-data; name="file"; filename="huge.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n`,
    );
    async function* body() {
      yield head;
      for (let i = 0; i < 101; i++) yield megabyte;
      yield Buffer.from("\r\n--x--\r\n");
    }
    const streamed = await fetch(`${base}/api/v1/media`, {
      method: "POST",
      headers: { Authorization: `Bearer ${t.key}`, "Content-Type": "multipart/form-data; boundary=x" },
      body: Readable.toWeb(Readable.from(body())) as ReadableStream,
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    await streamed.arrayBuffer();
    expect(await mediaRows()).toBe(0);
    await vi.waitFor(() => expect(filesOnDisk()).toBe(0), { timeout: 30_000, interval: 20 });
  });
});

describe("GET and DELETE /api/v1/media/{id}", () => {
  it("keeps each tenant's files to itself: another's id is not found, to read, delete or send", async () => {
    const a = await tenant("Amani Traders");
    const b = await tenant("Baraka Sacco");
    const mine = (await upload(a, { bytes: jpeg(), type: "image/jpeg", name: "a.jpg" })).body;
    for (const method of ["GET", "DELETE"]) {
      for (const id of [mine.id, "not-a-uuid", "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f"]) {
        const refused = await api(b, method, `/api/v1/media/${id}`);
        expect(refused, `${method} ${id}`).toMatchObject({ status: 404, body: { code: "not_found" } });
      }
    }
    await meta.customerWrites(b.phoneNumberId, "254712345678");
    const send = (organizationId: string, content: SendRequest["content"]) =>
      refusalOf(organizationId, { to: "+254712345678", content, source: "api" });
    expect(await send(b.organizationId, { kind: "image", media: { mediaId: mine.id } })).toMatchObject({
      status: 404,
      code: "media_not_found",
    });
    // The owner: the file must fit the kind of message.
    await meta.customerWrites(a.phoneNumberId, "254712345678");
    expect(await send(a.organizationId, { kind: "document", media: { mediaId: mine.id, filename: "a.pdf" } })).toEqual({
      status: 422,
      code: "media_type_mismatch",
      message:
        "document.mediaId: the file is image/jpeg, which WhatsApp sends as an image; a document takes text/plain, application/pdf, application/msword, application/vnd.ms-excel, application/vnd.ms-powerpoint, application/vnd.openxmlformats-officedocument.wordprocessingml.document, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, application/vnd.openxmlformats-officedocument.presentationml.presentation.",
    });
    expect(await send(a.organizationId, { kind: "sticker", media: { mediaId: mine.id } })).toMatchObject({ code: "media_type_mismatch" });
    expect((await rawQuery(`select 1 from messages where direction = 'outbound'`)).length).toBe(0);

    expect((await api(a, "DELETE", `/api/v1/media/${mine.id}`)).status).toBe(204);
    expect(await api(a, "GET", `/api/v1/media/${mine.id}`)).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect(await mediaRows()).toBe(0);
    expect(filesOnDisk()).toBe(0);
  });
});

describe("sending by mediaId", () => {
  it("uploads the file to Meta at dispatch, once per number, and Meta receives its own media id", async () => {
    const t = await tenant("Nyota Savings Sacco");
    await meta.customerWrites(t.phoneNumberId, "254712345678");
    await meta.customerWrites(t.phoneNumberId, "254712345679");
    const photo = jpeg(50_000);
    const file = (await upload(t, { bytes: photo, type: "image/jpeg", name: "risiti.jpg" })).body;
    const image = (to: string): SendRequest => ({
      to,
      content: { kind: "image", media: { mediaId: file.id, caption: "Risiti yako" } },
      source: "api",
    });
    const first = await queueMessage(t.organizationId, image("+254712345678"));
    // Stored with Jumbe's placeholder until dispatch.
    expect((await messageRow(first.id)).payload).toMatchObject({ image: { id: `jumbe-media:${file.id}`, caption: "Risiti yako" } });
    await drainDispatcher();
    const second = await queueMessage(t.organizationId, image("+254712345679"));
    await drainDispatcher();

    // What Meta received, as the sandbox's control API lists it.
    const control = await fetch(`${meta.graph.graphBase.replace(/\/graph$/, "")}/control/messages?phoneNumberId=${t.phoneNumberId}`);
    const received = ((await control.json()) as { messages: ReturnType<MetaSandbox["messages"]> }).messages.filter(
      (m) => m.type === "image",
    );
    expect(received.map((m) => m.to)).toEqual(["+254712345678", "+254712345679"]);
    const metaId = (received[0]!.body.image as { id: string }).id;
    expect(metaId).toMatch(/^\d+$/);
    expect(received[1]!.body.image).toEqual({ id: metaId, caption: "Risiti yako" });
    expect(JSON.stringify(received)).not.toContain("jumbe-media:");
    expect(meta.sandbox.calls().filter((c) => c.step === "media.upload")).toHaveLength(1);
    // What Meta holds under that id is the file, byte for byte.
    const held = await atMeta(t, metaId);
    expect(held.facts).toMatchObject({ mime_type: "image/jpeg", sha256: file.sha256, file_size: String(photo.length) });
    expect(held.bytes).toEqual(photo);
    for (const id of [first.id, second.id]) expect((await messageRow(id)).wamid).toMatch(/^wamid\./);
    // The stored request keeps the placeholder: a later retry uploads again if Meta's id expired.
    expect((await messageRow(second.id)).payload).toMatchObject({ image: { id: `jumbe-media:${file.id}` } });

    // Meta keeps media 30 days: an upload older than 29 days is not sent again, the file is uploaded anew.
    await rawQuery(`update media_uploads set uploaded_at = now() - interval '29 days 1 hour'`);
    await meta.customerWrites(t.phoneNumberId, "254712345670");
    await queueMessage(t.organizationId, image("+254712345670"));
    await drainDispatcher();
    expect(meta.sandbox.calls().filter((c) => c.step === "media.upload")).toHaveLength(2);
    const [upload2] = await rawQuery<{ meta_media_id: string }>(`select meta_media_id from media_uploads`);
    expect(upload2!.meta_media_id).not.toBe(metaId);
    const third = meta.sandbox.messages({ phoneNumberId: t.phoneNumberId, to: "+254712345670" })[0]!;
    expect(third.body.image).toEqual({ id: upload2!.meta_media_id, caption: "Risiti yako" });

    // Meta lost the media early (the sandbox forgets its media on a restart): a reused id is checked
    // with Meta every ten minutes, and one Meta no longer has is uploaded again rather than sent.
    const token = decryptSecret(t.account.accessTokenEncrypted);
    const deleted = await fetch(`${meta.graph.graphBase}/v25.0/${upload2!.meta_media_id}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(deleted.status).toBe(200);
    await meta.customerWrites(t.phoneNumberId, "254712345671");
    await queueMessage(t.organizationId, image("+254712345671"));
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 11 * 60_000);
      await drainDispatcher();
    } finally {
      vi.useRealTimers();
    }
    expect(meta.sandbox.calls().filter((c) => c.step === "media.upload")).toHaveLength(3);
    const fourth = meta.sandbox.messages({ phoneNumberId: t.phoneNumberId, to: "+254712345671" })[0]!;
    expect((fourth.body.image as { id: string }).id).not.toBe(upload2!.meta_media_id);
    expect((await atMeta(t, (fourth.body.image as { id: string }).id)).bytes).toEqual(photo);
  });

  it("sends a template's media header by mediaId", async () => {
    const t = await tenant("Header Ltd");
    await rawQuery(
      `insert into message_templates (organization_id, waba_id, meta_template_id, name, language, category, status, components)
       values ($1, $2, 'm-1', 'receipt_ready', 'en', 'UTILITY', 'approved', $3::jsonb)`,
      [
        t.organizationId,
        t.wabaId,
        JSON.stringify([
          { type: "HEADER", format: "DOCUMENT" },
          { type: "BODY", text: "Your receipt is ready." },
        ]),
      ],
    );
    // At Meta the template was made with a sample document, through the Resumable Upload API.
    const handle = await graphClient().uploadFile(decryptSecret(t.account.accessTokenEncrypted), {
      fileName: "sample.pdf",
      contentType: "application/pdf",
      bytes: pdf(),
    });
    meta.sandbox.createTemplateAtMeta(t.wabaId, {
      name: "receipt_ready",
      language: "en",
      category: "UTILITY",
      components: [
        { type: "HEADER", format: "DOCUMENT", example: { header_handle: [handle] } },
        { type: "BODY", text: "Your receipt is ready." },
      ],
    });
    const image = (await upload(t, { bytes: jpeg(), type: "image/jpeg", name: "r.jpg" })).body;
    const receipt = (await upload(t, { bytes: pdf(), type: "application/pdf", name: "risiti.pdf" })).body;
    const template = (mediaId: string): SendRequest => ({
      to: "+254712345678",
      content: { kind: "template", template: { name: "receipt_ready", parameters: [], header: { mediaId } } },
      source: "api",
    });
    expect(await refusalOf(t.organizationId, template(image.id))).toMatchObject({ status: 422, code: "media_type_mismatch" });
    const queued = await queueMessage(t.organizationId, template(receipt.id));
    await drainDispatcher();
    expect((await messageRow(queued.id)).wamid).toMatch(/^wamid\./);
    const [sent] = meta.sandbox.messages({ phoneNumberId: t.phoneNumberId });
    const header = (sent!.body.template as { components: { type: string; parameters: { document: { id: string } }[] }[] }).components[0]!;
    // The document is named as it was uploaded, since the message gave no filename.
    expect(header.parameters[0]!.document).toEqual({ id: expect.stringMatching(/^\d+$/), filename: "risiti.pdf" });
    expect((await atMeta(t, header.parameters[0]!.document.id)).bytes).toEqual(pdf());
  });

  it("takes an upload's failure down the send's path: Meta's permanent error fails the message, a temporary one retries it", async () => {
    const t = await tenant("Shida Ltd");
    await meta.customerWrites(t.phoneNumberId, "254712345678");
    await meta.customerWrites(t.phoneNumberId, "254712345679");
    const file = (await upload(t, { bytes: jpeg(), type: "image/jpeg", name: "a.jpg" })).body;
    const image = (to: string): SendRequest => ({ to, content: { kind: "image", media: { mediaId: file.id } }, source: "api" });

    meta.sandbox.injectFault({ step: "media.upload", error: { code: 100, status: 400, message: "(#100) Invalid parameter" } });
    const refused = await queueMessage(t.organizationId, image("+254712345678"));
    await drainDispatcher();
    expect(await messageRow(refused.id)).toMatchObject({ status: "failed", error_code: 100 });
    expect(meta.sandbox.messages({ phoneNumberId: t.phoneNumberId }).filter((m) => m.type === "image")).toHaveLength(0);

    // Meta's temporary trouble on every try (the client's own retries included): the message waits for its next try.
    meta.sandbox.injectFault({
      step: "media.upload",
      error: { code: 131000, status: 500, message: "Something went wrong" },
      times: Infinity,
    });
    const later = await queueMessage(t.organizationId, image("+254712345679"));
    await drainDispatcher();
    const waiting = await messageRow(later.id);
    expect(waiting).toMatchObject({ status: "queued", error_code: 131000, attempts: 1, accepted_at: null });
    expect(new Date(waiting.next_attempt_at as string).getTime()).toBeGreaterThan(Date.now());
    meta.sandbox.clearFaults();
    await rawQuery(`update messages set next_attempt_at = now() where id = $1`, [later.id]);
    await drainDispatcher();
    expect(await messageRow(later.id)).toMatchObject({ status: "queued", error_code: null, wamid: expect.stringMatching(/^wamid\./) });

    // A file deleted while its message waited: the message fails, saying so.
    const gone = (await upload(t, { bytes: jpeg(), type: "image/jpeg", name: "b.jpg" })).body;
    await meta.customerWrites(t.phoneNumberId, "254712345670");
    const orphan = await queueMessage(t.organizationId, {
      to: "+254712345670",
      content: { kind: "image", media: { mediaId: gone.id } },
      source: "api",
    });
    expect((await api(t, "DELETE", `/api/v1/media/${gone.id}`)).status).toBe(204);
    await drainDispatcher();
    const failed = await messageRow(orphan.id);
    expect(failed).toMatchObject({ status: "failed", wamid: null });
    expect(failed.error_details).toContain("media_not_found");
  });
});

describe("customers' media", () => {
  async function inboundMessage(phoneNumberId: string, wamid: string) {
    let row: Record<string, unknown> | undefined;
    await vi.waitFor(
      async () => {
        await drainJobs();
        [row] = await rawQuery(`select * from messages where wamid = $1`, [wamid]);
        expect(row).toBeDefined();
      },
      { timeout: 30_000, interval: 20 },
    );
    expect(row!.phone_number_id).toBe(phoneNumberId);
    return row!;
  }

  it("downloads a customer's image, and every other media kind, into storage: byte for byte what Meta served, linked to the message", async () => {
    const t = await tenant("Pokea Ltd");
    const sent = await meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, from: "254712345678", type: "image", caption: "Mzigo" });
    const served = await atMeta(t, sent.mediaId!);
    const message = await inboundMessage(t.phoneNumberId, sent.wamid);
    expect(message.media_file_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(message.error_title).toBeNull();
    const [file] = await rawQuery<Record<string, unknown>>(`select * from media_files where id = $1`, [message.media_file_id]);
    expect(file).toMatchObject({
      organization_id: t.organizationId,
      direction: "inbound",
      mime_type: served.facts.mime_type,
      size: served.bytes.length,
      sha256: sha256(served.bytes),
      meta_media_id: sent.mediaId,
      phone_number_id: t.phoneNumberId,
    });
    expect(await buffer(await fileStorage().read(String(file!.storage_key)))).toEqual(served.bytes);
    // Open threads hear of it: a status event for the message, in its conversation.
    // (The message's own arrival logged a "message" event before.)
    expect((await inboxEvents(String(message.id))).filter((e) => e.kind === "status")).toEqual([
      { kind: "status", conversation_id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    ]);
    // The tenant reads it like its uploads.
    expect((await api(t, "GET", `/api/v1/media/${String(file!.id)}`)).body).toMatchObject({ sha256: sha256(served.bytes) });

    // A document keeps its name; a delivery of the same webhook again downloads nothing more.
    const doc = await meta.sandbox.sendInbound({
      phoneNumberId: t.phoneNumberId,
      from: "254712345678",
      type: "document",
      filename: "ankara.pdf",
    });
    const docMessage = await inboundMessage(t.phoneNumberId, doc.wamid);
    const [docFile] = await rawQuery<Record<string, unknown>>(`select * from media_files where id = $1`, [docMessage.media_file_id]);
    expect(docFile).toMatchObject({ file_name: "ankara.pdf", direction: "inbound" });
    await drainJobs();
    expect(await mediaRows()).toBe(2);
    expect(filesOnDisk()).toBe(2);

    // Every other kind a customer sends is downloaded too.
    const kinds = [{ type: "video" as const }, { type: "audio" as const, voice: true }, { type: "sticker" as const, animated: true }];
    for (const kind of kinds) {
      const one = await meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, from: "254712345678", ...kind });
      const row = await inboundMessage(t.phoneNumberId, one.wamid);
      const [stored] = await rawQuery<Record<string, unknown>>(`select * from media_files where id = $1`, [row.media_file_id]);
      const served = await atMeta(t, one.mediaId!);
      expect(stored, kind.type).toMatchObject({ meta_media_id: one.mediaId, sha256: sha256(served.bytes), size: served.bytes.length });
    }
  });

  it("records a download that cannot succeed on the message, which stays as it came", async () => {
    const t = await tenant("Potea Ltd");
    // Meta no longer has the media: a permanent error, recorded at once.
    meta.sandbox.injectFault({ step: "media.get", error: { code: 100, subcode: 33, status: 400, message: "Unsupported get request." } });
    const lost = await meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, from: "254712345678", type: "image" });
    let message = await inboundMessage(t.phoneNumberId, lost.wamid);
    await vi.waitFor(
      async () => {
        await drainJobs();
        message = (await rawQuery<Record<string, unknown>>(`select * from messages where id = $1`, [message.id]))[0]!;
        expect(message.error_title).toBe("media_download_failed");
      },
      { timeout: 30_000, interval: 20 },
    );
    expect(message).toMatchObject({ status: "received", message_type: "image", media_file_id: null, error_code: 100 });
    expect((await inboxEvents(String(message.id))).map((e) => e.kind)).toEqual(["message", "status"]);
    expect(message.payload).toMatchObject({ image: { id: lost.mediaId } });

    // Temporary trouble every time: retried with the queue's backoff, then recorded after the last try.
    meta.sandbox.injectFault({
      step: "media.download",
      error: { code: 131000, status: 500, message: "Something went wrong" },
      times: Infinity,
    });
    const flaky = await meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, from: "254712345678", type: "audio", voice: true });
    const waiting = await inboundMessage(t.phoneNumberId, flaky.wamid);
    await drainJobs();
    const [job] = await rawQuery<{ id: number; attempts: number; failed_at: unknown }>(
      `select id, attempts, failed_at from jobs where queue = 'messaging.inbound-media' and payload ->> 'messageId' = $1`,
      [waiting.id],
    );
    expect(job).toMatchObject({ attempts: 1, failed_at: null });
    expect((await messageRow(String(waiting.id))).error_title).toBeNull();
    await rawQuery(`update jobs set attempts = 4, run_at = now() where id = $1`, [job!.id]);
    await drainJobs();
    expect(await messageRow(String(waiting.id))).toMatchObject({
      error_title: "media_download_failed",
      media_file_id: null,
      status: "received",
    });
    expect(await mediaRows()).toBe(0);
    expect(filesOnDisk()).toBe(0);
  });
});
