import { afterEach, describe, expect, it } from "vitest";
import type { MetaSandboxOptions } from "./index";
import { APP_ID, startHarness, type GraphErrorBody, type Harness } from "./test-support";
import type { SandboxUpload } from "./types";

// Meta's Resumable Upload API in the sandbox, and the handles it issues as template samples.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.alloc(200, 7)]);

async function setup(overrides: Partial<MetaSandboxOptions> = {}) {
  h = await startHarness({ templateReviewDelayMs: 600_000, ...overrides });
  const state = await h.state();
  const businessId = state.businesses.find((b) => b.demo)!.id as string;
  const wabaId = state.wabas.find((w) => w.businessId === businessId)!.id as string;
  const token = await h.tokenFor(businessId, [wabaId]);
  return { harness: h, wabaId, token };
}

function session(harness: Harness, token: string, query: Record<string, string>) {
  return harness.graph(`${APP_ID}/uploads?${new URLSearchParams(query)}`, { method: "POST", token });
}

/**
 * A Resumable Upload answer: the handle once the file is whole, the offset reached, or Graph's error;
 * each test reads the one it expects.
 */
type UploadAnswer = { h: string; file_offset: number } & GraphErrorBody;

async function send(harness: Harness, id: string, token: string, bytes: Buffer, offset = 0, scheme = "OAuth") {
  const response = await fetch(`${harness.base}/graph/v23.0/${id}`, {
    method: "POST",
    headers: { Authorization: `${scheme} ${token}`, file_offset: String(offset) },
    body: new Uint8Array(bytes),
  });
  return { status: response.status, json: (await response.json()) as UploadAnswer };
}

async function offsetOf(harness: Harness, id: string, token: string) {
  const response = await fetch(`${harness.base}/graph/v23.0/${id}`, { headers: { Authorization: `OAuth ${token}` } });
  return { status: response.status, json: (await response.json()) as UploadAnswer };
}

const mediaTemplate = (name: string, handle: unknown) => ({
  name,
  language: "en",
  category: "MARKETING",
  components: [
    { type: "HEADER", format: "IMAGE", example: { header_handle: [handle] } },
    { type: "BODY", text: "Our new season is here." },
  ],
});

describe("the Resumable Upload API", () => {
  it("opens a session, takes the bytes, answers a handle, and reports the offset", async () => {
    const { harness, token } = await setup();
    const opened = await session(harness, token, { file_name: "poster.png", file_length: String(PNG.length), file_type: "image/png" });
    expect(opened.status).toBe(200);
    expect(opened.json.id).toMatch(/^upload:[A-Za-z0-9_-]+\?sig=[A-Za-z0-9_-]+$/);
    expect((await offsetOf(harness, opened.json.id, token)).json).toEqual({ id: opened.json.id, file_offset: 0 });

    const sent = await send(harness, opened.json.id, token, PNG);
    expect(sent.status).toBe(200);
    expect(sent.json.h).toMatch(/^4::[A-Za-z0-9+/=]+:[A-Za-z0-9_-]+$/);
    expect((await offsetOf(harness, opened.json.id, token)).json.file_offset).toBe(PNG.length);
    // The answer of a finished upload, asked again at its end, is the same handle.
    expect((await send(harness, opened.json.id, token, Buffer.alloc(0), PNG.length)).json).toEqual({ h: sent.json.h });

    const [upload] = harness.sandbox.uploads();
    expect(upload).toMatchObject({
      fileName: "poster.png",
      fileType: "image/png",
      fileLength: PNG.length,
      fileOffset: PNG.length,
      handle: sent.json.h,
    });
    expect(harness.sandbox.calls().map((c) => c.step)).toEqual([
      "oauth",
      "upload.create",
      "upload.status",
      "upload.send",
      "upload.status",
      "upload.send",
    ]);
  });

  it("refuses a wrong type, a size over Meta's limit, a missing parameter and another app's id", async () => {
    const { harness, token } = await setup();
    const cases: [Record<string, string>, RegExp][] = [
      [
        { file_name: "a.gif", file_length: "10", file_type: "image/gif" },
        /Param file_type must be one of \{image\/jpeg, image\/png, video\/mp4, application\/pdf\}/,
      ],
      [
        { file_name: "a.png", file_length: String(5 * 1024 * 1024 + 1), file_type: "image/png" },
        /too large: image\/png files can be 5242880 bytes/,
      ],
      [{ file_name: "a.mp4", file_length: String(16 * 1024 * 1024 + 1), file_type: "video/mp4" }, /too large/],
      [{ file_name: "a.png", file_length: "0", file_type: "image/png" }, /file_length must be a positive integer/],
      [{ file_length: "10", file_type: "image/png" }, /The parameter file_name is required/],
    ];
    for (const [query, message] of cases) {
      const answer = await session(harness, token, query);
      expect(answer.status, JSON.stringify(query)).toBe(400);
      expect(answer.json.error).toMatchObject({ code: 100, type: "OAuthException", fbtrace_id: expect.any(String) });
      expect(answer.json.error.message).toMatch(message);
    }
    // A 100 MB PDF is fine at Meta.
    expect(
      (await session(harness, token, { file_name: "a.pdf", file_length: String(100 * 1024 * 1024), file_type: "application/pdf" })).status,
    ).toBe(200);
    const otherApp = await harness.graph(`123/uploads?file_name=a.png&file_length=10&file_type=image/png`, { method: "POST", token });
    expect(otherApp.json.error).toMatchObject({ code: 100, error_subcode: 33 });
    expect(harness.sandbox.uploads()).toHaveLength(1);
  });

  it("answers Meta's errors for a bad token, an unknown session, a wrong offset and a length mismatch, changing nothing", async () => {
    const { harness, token } = await setup();
    const noToken = await fetch(`${harness.base}/graph/v23.0/${APP_ID}/uploads?file_name=a.png&file_length=10&file_type=image/png`, {
      method: "POST",
    });
    expect(noToken.status).toBe(401);
    expect((await noToken.json()).error.code).toBe(190);
    expect(
      (await session(harness, "EAAnot-a-token", { file_name: "a.png", file_length: "10", file_type: "image/png" })).json.error,
    ).toMatchObject({
      code: 190,
      error_subcode: 467,
    });

    const { id } = (await session(harness, token, { file_name: "a.png", file_length: String(PNG.length), file_type: "image/png" })).json;
    expect((await send(harness, id, "EAAnot-a-token", PNG)).json.error.code).toBe(190);
    expect((await send(harness, id.replace(/sig=.*/, "sig=forged"), token, PNG)).json.error).toMatchObject({
      code: 100,
      error_subcode: 33,
    });
    expect((await send(harness, "upload:nothing", token, PNG)).json.error).toMatchObject({ code: 100, error_subcode: 33 });

    const wrongOffset = await send(harness, id, token, PNG.subarray(10), 10);
    expect(wrongOffset.status).toBe(400);
    expect(wrongOffset.json.error).toMatchObject({ code: 100, error_user_title: "Wrong file offset", error_data: { file_offset: 0 } });
    const short = await send(harness, id, token, PNG.subarray(1));
    expect(short.json.error).toMatchObject({ code: 100, error_user_title: "File length mismatch" });
    const long = await send(harness, id, token, Buffer.concat([PNG, Buffer.from("x")]));
    expect(long.json.error.message).toMatch(/body has 209 bytes, but file_length says 208 remain/);
    const missing = await fetch(`${harness.base}/graph/v23.0/${id}`, {
      method: "POST",
      headers: { Authorization: `OAuth ${token}` },
      body: new Uint8Array(PNG),
    });
    expect(((await missing.json()) as GraphErrorBody).error.message).toBe("(#100) The header file_offset is required");
    expect((await offsetOf(harness, id, token)).json.file_offset).toBe(0);
    expect(harness.sandbox.uploads()[0]!.handle).toBeNull();
    // Another system user's token does not see the session.
    const other = harness.sandbox.createTestBusiness({ businessName: "Other" });
    const otherToken = await harness.tokenFor(other.businessId, [other.wabaId]);
    expect((await offsetOf(harness, id, otherToken)).json.error).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it("cuts a cut-once file short on its first send; the client resumes from the offset GET reports", async () => {
    const { harness, token } = await setup();
    const { id } = (
      await session(harness, token, { file_name: "poster-cut-once.png", file_length: String(PNG.length), file_type: "image/png" })
    ).json;
    const cut = await send(harness, id, token, PNG);
    expect(cut.status).toBe(503);
    expect(cut.json.error).toMatchObject({ code: 2, is_transient: true });
    const { file_offset } = (await offsetOf(harness, id, token)).json;
    expect(file_offset).toBe(PNG.length / 2);
    const resumed = await send(harness, id, token, PNG.subarray(file_offset), file_offset);
    expect(resumed.json.h).toMatch(/^4::/);
    // The bytes put together are the file's.
    const key = id.replace(/^upload:/, "").replace(/\?.*$/, "");
    const served = await fetch(`${harness.base}/uploads/${key}`);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it("injects faults on upload.create and upload.send before any change", async () => {
    const { harness, token } = await setup();
    harness.sandbox.injectFault({
      step: "upload.create",
      error: { code: 1, status: 500, message: "An unknown error occurred", isTransient: true },
    });
    const failed = await session(harness, token, { file_name: "a.png", file_length: String(PNG.length), file_type: "image/png" });
    expect(failed.json.error).toMatchObject({ code: 1, is_transient: true });
    expect(harness.sandbox.uploads()).toEqual([]);
    const { id } = (await session(harness, token, { file_name: "a.png", file_length: String(PNG.length), file_type: "image/png" })).json;
    harness.sandbox.injectFault({ step: "upload.send", error: { code: 100, message: "(#100) Invalid file" } });
    expect((await send(harness, id, token, PNG)).json.error.message).toBe("(#100) Invalid file");
    expect(harness.sandbox.uploads()[0]!.fileOffset).toBe(0);
    expect((await send(harness, id, token, PNG)).json.h).toMatch(/^4::/);
    const listed = (await (await fetch(`${harness.base}/control/uploads`)).json()) as { uploads: SandboxUpload[] };
    expect(listed.uploads).toHaveLength(1);
    expect(listed.uploads[0]!.handle).toMatch(/^4::/);
  });
});

describe("media headers of templates", () => {
  it("take a handle the uploads issued, stored as Meta's example URL; refuse one they did not", async () => {
    const { harness, token, wabaId } = await setup();
    const { id } = (await session(harness, token, { file_name: "poster.png", file_length: String(PNG.length), file_type: "image/png" }))
      .json;
    const { h } = (await send(harness, id, token, PNG)).json;

    const post = (payload: unknown) =>
      harness.graph(`${wabaId}/message_templates`, {
        method: "POST",
        token,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(payload),
      });
    const forged = await post(mediaTemplate("season_launch", "4::aW1hZ2UvcG5n:made-up"));
    expect(forged.status).toBe(400);
    expect(forged.json.error).toMatchObject({ code: 100, error_subcode: 2388047, error_user_title: "Invalid sample media" });
    const none = await post({
      ...mediaTemplate("season_launch", h),
      components: [
        { type: "HEADER", format: "IMAGE" },
        { type: "BODY", text: "Hi." },
      ],
    });
    expect(none.json.error.error_user_title).toBe("Sample media missing");
    expect(harness.sandbox.templates(wabaId)).toEqual([]);

    const created = await post(mediaTemplate("season_launch", h));
    expect(created.status).toBe(200);
    const [stored] = harness.sandbox.templates(wabaId);
    const url = (stored!.components[0] as { example: { header_handle: string[] } }).example.header_handle[0] as string;
    expect(url).toBe(`${harness.origin}/sandbox/meta/uploads/${id.replace(/^upload:/, "").replace(/\?.*$/, "")}`);
    const listed = await harness.graph(`${wabaId}/message_templates?fields=components`, { token });
    expect(listed.json.data[0]!.components[0]).toEqual({ type: "HEADER", format: "IMAGE", example: { header_handle: [url] } });
    const image = await fetch(url);
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it("is shown on the console", async () => {
    const { harness, token } = await setup();
    const { id } = (await session(harness, token, { file_name: "menu.pdf", file_length: "4", file_type: "application/pdf" })).json;
    await send(harness, id, token, Buffer.from("%PDF"));
    const html = await (await fetch(harness.base)).text();
    expect(html).toContain("Uploads (Resumable Upload API)");
    expect(html).toContain("menu.pdf");
    expect(html).toContain("4 / 4 bytes");
  });
});
