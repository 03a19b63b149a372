import { describe, expect, it } from "vitest";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { hashPassword } from "~/.server/domains/auth/password";
import { storeUploadedMedia } from "~/.server/domains/messaging/media-files";
import { fileStorage } from "~/.server/infrastructure/storage";
import { createVerifiedUser, signedInCookie, uniqueEmail } from "../support/accounts";
import { getRequest } from "../support/http";
import { appFetch } from "../support/in-process-app";

// Issue 16: a thread's files at /chat/media/:id (a message's id): the tenant's own only, with the
// headers that keep an uploaded file from running as a page, caching by SHA-256, and byte ranges
// for audio and video on slow networks.

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const VOICE = Buffer.concat([Buffer.from("OggS"), randomBytes(4000)]);
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");

async function tenant(name: string) {
  const owner = await createVerifiedUser({ businessName: name });
  return { organizationId: owner.organization.id, cookie: await signedInCookie(owner.email, owner.password) };
}

/** A member of the organisation in `role`, signed in. */
async function member(organizationId: string, role: "agent" | "viewer") {
  const email = uniqueEmail(role);
  const password = "Member#Pass2026";
  await rawQuery(
    `insert into users (organization_id, email, first_name, last_name, password_hash, is_verified, org_role)
     values ($1, $2, 'Wanjiru', 'Kamau', $3, true, $4)`,
    [organizationId, email, await hashPassword(password), role],
  );
  return signedInCookie(email, password);
}

/** A customer's voice note as the download job leaves it: the bytes in storage, the row, the message linked to it. */
async function inboundVoiceNote(organizationId: string, bytes = VOICE) {
  const stored = await fileStorage().write([bytes], { maxBytes: 1_000_000, organisationId: organizationId });
  const [file] = await rawQuery<{ id: string }>(
    `insert into media_files (organization_id, direction, mime_type, size, sha256, storage_key, meta_media_id, phone_number_id)
     values ($1, 'inbound', 'audio/ogg', $2, $3, $4, '1234567890', '106540352242922') returning id`,
    [organizationId, stored.size, stored.sha256, stored.key],
  );
  return insertMessage(organizationId, "inbound", "audio", { type: "audio", audio: { id: "1234567890", voice: true } }, file!.id);
}

async function insertMessage(organizationId: string, direction: string, type: string, payload: unknown, mediaFileId: string | null = null) {
  const [message] = await rawQuery<{ id: string }>(
    `insert into messages (organization_id, direction, status, body, phone_number_id, message_type, payload, media_file_id)
     values ($1, $2, $3, '', '106540352242922', $4, $5::jsonb, $6) returning id`,
    [organizationId, direction, direction === "inbound" ? "received" : "sent", type, JSON.stringify(payload), mediaFileId],
  );
  return message!.id;
}

/** A document uploaded to Jumbe and sent by it (the stored request names the upload). */
async function outboundDocument(organizationId: string, fileOrganizationId = organizationId) {
  const upload = await storeUploadedMedia(fileOrganizationId, {
    declaredType: "application/pdf",
    fileName: "Bei ya bidhaa (Machi).pdf",
    chunks: (async function* () {
      yield PDF;
    })(),
  });
  const id = await insertMessage(organizationId, "outbound", "document", {
    messaging_product: "whatsapp",
    to: "+254712345678",
    type: "document",
    document: { id: `jumbe-media:${upload.id}`, filename: "Bei ya bidhaa (Machi).pdf" },
  });
  return { id, upload };
}

async function get(path: string, cookie?: string, headers: Record<string, string> = {}) {
  const response = await appFetch(getRequest(path, { cookie, headers }));
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe("GET /chat/media/:id", () => {
  it("serves a customer's file with its type, length, no browser caching and headers that keep it from running", async () => {
    const t = await tenant("Sauti Traders");
    const id = await inboundVoiceNote(t.organizationId);
    const answer = await get(`/chat/media/${id}`, t.cookie);
    expect(answer.status).toBe(200);
    expect(answer.bytes).toEqual(VOICE);
    expect(Object.fromEntries(answer.headers)).toMatchObject({
      "content-type": "audio/ogg",
      "content-length": String(VOICE.length),
      // Never kept by the browser: a customer's photo must not outlive the sign-out (issue 38, item 10b).
      "cache-control": "private, no-store",
      etag: `"${sha256(VOICE)}"`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox",
      "accept-ranges": "bytes",
    });
    expect(answer.headers.get("content-disposition")).toMatch(/^inline; /);
  });

  it("serves the upload Jumbe sent as an attachment with its name", async () => {
    const t = await tenant("Bei Traders");
    const { id } = await outboundDocument(t.organizationId);
    const answer = await get(`/chat/media/${id}`, t.cookie);
    expect(answer.status).toBe(200);
    expect(answer.bytes).toEqual(PDF);
    expect(answer.headers.get("content-type")).toBe("application/pdf");
    expect(answer.headers.get("content-disposition")).toBe(
      `attachment; filename="Bei_ya_bidhaa_Machi_.pdf"; filename*=UTF-8''Bei%20ya%20bidhaa%20%28Machi%29.pdf`,
    );
    expect(answer.headers.get("content-security-policy")).toBe("sandbox");
  });

  it("answers one byte range with 206, a range past the end with 416, and a known version with 304", async () => {
    const t = await tenant("Masafa Ltd");
    const id = await inboundVoiceNote(t.organizationId);
    const part = await get(`/chat/media/${id}`, t.cookie, { Range: "bytes=100-199" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${VOICE.length}`);
    expect(part.headers.get("content-length")).toBe("100");
    expect(part.bytes).toEqual(VOICE.subarray(100, 200));

    const open = await get(`/chat/media/${id}`, t.cookie, { Range: "bytes=4000-" });
    expect(open.status).toBe(206);
    expect(open.bytes).toEqual(VOICE.subarray(4000));
    const tail = await get(`/chat/media/${id}`, t.cookie, { Range: "bytes=-10" });
    expect(tail.headers.get("content-range")).toBe(`bytes ${VOICE.length - 10}-${VOICE.length - 1}/${VOICE.length}`);
    expect(tail.bytes).toEqual(VOICE.subarray(-10));

    const past = await get(`/chat/media/${id}`, t.cookie, { Range: `bytes=${VOICE.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${VOICE.length}`);
    expect(past.bytes.length).toBe(0);

    // Several ranges at once are not offered: the whole file.
    const several = await get(`/chat/media/${id}`, t.cookie, { Range: "bytes=0-9,20-29" });
    expect(several.status).toBe(200);
    expect(several.bytes).toEqual(VOICE);

    const cached = await get(`/chat/media/${id}`, t.cookie, { "If-None-Match": `"${sha256(VOICE)}"` });
    expect(cached.status).toBe(304);
    expect(cached.bytes.length).toBe(0);
    expect(cached.headers.get("etag")).toBe(`"${sha256(VOICE)}"`);
    expect((await get(`/chat/media/${id}`, t.cookie, { "If-None-Match": `"${"0".repeat(64)}"` })).status).toBe(200);
  });

  it("is 404 for another organisation's message, a file of another's, a message without a file and a malformed id", async () => {
    const mine = await tenant("Yangu Ltd");
    const theirs = await tenant("Yao Ltd");
    const foreign = await inboundVoiceNote(theirs.organizationId);
    const borrowed = await outboundDocument(mine.organizationId, theirs.organizationId);
    const text = await insertMessage(mine.organizationId, "inbound", "text", { type: "text", text: { body: "Habari" } });
    for (const path of [
      `/chat/media/${foreign}`,
      `/chat/media/${borrowed.id}`,
      `/chat/media/${text}`,
      `/chat/media/${randomUUID()}`,
      "/chat/media/not-a-uuid",
      "/chat/media/'%20or%201=1",
    ]) {
      const answer = await get(path, mine.cookie);
      expect(answer.status, path).toBe(404);
      expect(answer.bytes.toString(), path).not.toContain("OggS");
    }
    // The owner still has theirs.
    expect((await get(`/chat/media/${foreign}`, theirs.cookie)).status).toBe(200);
  });

  it("lets a viewer fetch a file, and sends a signed-out visitor to sign in", async () => {
    const t = await tenant("Ona Ltd");
    const id = await inboundVoiceNote(t.organizationId);
    const viewer = await member(t.organizationId, "viewer");
    const seen = await get(`/chat/media/${id}`, viewer);
    expect(seen.status).toBe(200);
    expect(seen.bytes).toEqual(VOICE);

    // A signed-out browser is sent to sign in and back; a script is told 401, as every download answers it (decision 055).
    const visitor = await appFetch(getRequest(`/chat/media/${id}`, { headers: { accept: "text/html" } }));
    expect(visitor.status).toBe(302);
    expect(visitor.headers.get("location")).toBe(`/login?from=${encodeURIComponent(`/chat/media/${id}`)}`);
    expect((await appFetch(getRequest(`/chat/media/${id}`))).status).toBe(401);
  });
});
