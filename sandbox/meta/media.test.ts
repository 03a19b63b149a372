import { afterEach, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { parseMultipart } from "./multipart";
import { startSending, type GraphErrorBody, type SendingHarness } from "./test-support";

// The Cloud API's media endpoints in the sandbox: upload, the two-hop download, delete, limits.

let h: SendingHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const JPEG = Buffer.concat([Buffer.from("ffd8ffe000104a464946", "hex"), Buffer.alloc(300, 9)]);
const PDF = Buffer.from("%PDF-1.4\n%%EOF\n");

function webp(size: number, animated: boolean) {
  const bytes = Buffer.alloc(size);
  bytes.write("RIFF", 0, "latin1");
  bytes.write("WEBPVP8X", 8, "latin1");
  bytes[20] = animated ? 0x02 : 0;
  return bytes;
}

async function upload(
  harness: SendingHarness,
  file: { bytes: Buffer; type?: string; contentType?: string; name?: string },
  options: { phoneNumberId?: string; product?: string | null } = {},
) {
  const form = new FormData();
  if (options.product !== null) form.set("messaging_product", options.product ?? "whatsapp");
  if (file.type !== undefined) form.set("type", file.type);
  form.set("file", new Blob([new Uint8Array(file.bytes)], { type: file.contentType ?? file.type ?? "" }), file.name ?? "file.bin");
  return harness.graph(`${options.phoneNumberId ?? harness.business.phoneNumberId}/media`, {
    method: "POST",
    token: harness.token,
    body: form,
  });
}

describe("media", () => {
  it("uploads, answers the node, downloads the bytes with the token, and deletes", async () => {
    h = await startSending();
    const uploaded = await upload(h, { bytes: JPEG, type: "image/jpeg", name: "picha.jpg" });
    expect(uploaded.status).toBe(200);
    expect(uploaded.json).toEqual({ id: expect.stringMatching(/^\d{15,16}$/) });
    const id = uploaded.json.id as string;

    const node = await h.graph(`${id}?phone_number_id=${h.business.phoneNumberId}`, { token: h.token });
    expect(node.json).toEqual({
      messaging_product: "whatsapp",
      url: expect.stringContaining("/lookaside/whatsapp_business/attachments/?mid="),
      mime_type: "image/jpeg",
      sha256: createHash("sha256").update(JPEG).digest("hex"),
      file_size: String(JPEG.length),
      id,
    });
    const url = node.json.url as string;
    expect(new URL(url).origin).toBe(h.origin);

    const download = await fetch(url, { headers: { Authorization: `Bearer ${h.token}` } });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/jpeg");
    expect(Buffer.from(await download.arrayBuffer()).equals(JPEG)).toBe(true);

    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as GraphErrorBody).error.code).toBe(190);
    const forged = await fetch(url.replace(/hash=[^&]+/, "hash=forged"), { headers: { Authorization: `Bearer ${h.token}` } });
    expect(forged.status).toBe(404);
    const other = h.sandbox.createTestBusiness();
    const otherToken = await h.tokenFor(other.businessId, [other.wabaId]);
    expect((await fetch(url, { headers: { Authorization: `Bearer ${otherToken}` } })).status).toBe(404);
    expect((await h.graph(id, { token: otherToken })).json.error).toMatchObject({ code: 100, error_subcode: 33 });
    expect((await h.graph(`${id}?phone_number_id=${other.phoneNumberId}`, { token: h.token })).json.error.error_subcode).toBe(33);

    const deleted = await h.graph(id, { method: "DELETE", token: h.token });
    expect(deleted.json).toEqual({ success: true });
    expect((await h.graph(id, { token: h.token })).json.error).toMatchObject({ code: 100, error_subcode: 33 });
    expect((await fetch(url, { headers: { Authorization: `Bearer ${h.token}` } })).status).toBe(404);
  });

  it("sends media by an id it issued for the number; another number's, a deleted or a wrong-type id is refused", async () => {
    h = await startSending();
    await h.customerWrites("254712345678");
    const image = (await upload(h, { bytes: JPEG, type: "image/jpeg" })).json.id as string;
    const pdf = (await upload(h, { bytes: PDF, type: "application/pdf", name: "risiti.pdf" })).json.id as string;
    const send = (type: string, id: string) => h!.send({ messaging_product: "whatsapp", to: "254712345678", type, [type]: { id } });

    expect((await send("image", image)).status).toBe(200);
    expect((await send("document", pdf)).status).toBe(200);
    const wrongType = await send("image", pdf);
    expect(wrongType.json.error).toMatchObject({ code: 131053, message: "(#131053) Media upload error" });

    const other = h.sandbox.createTestBusiness({ registered: true });
    const otherToken = await h.tokenFor(other.businessId, [other.wabaId]);
    const form = new FormData();
    form.set("messaging_product", "whatsapp");
    form.set("type", "image/jpeg");
    form.set("file", new Blob([new Uint8Array(JPEG)], { type: "image/jpeg" }), "a.jpg");
    const foreign = (await h.graph(`${other.phoneNumberId}/media`, { method: "POST", token: otherToken, body: form })).json.id as string;
    expect((await send("image", foreign)).json.error).toMatchObject({ code: 100, error_subcode: 33 });

    await h.graph(image, { method: "DELETE", token: h.token });
    expect((await send("image", image)).json.error).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it("keeps Meta's types and sizes", async () => {
    h = await startSending();
    const gif = await upload(h, { bytes: JPEG, type: "image/gif" });
    expect(gif.status).toBe(400);
    expect(gif.json.error.code).toBe(100);
    expect(gif.json.error.message).toMatch(/following types: image\/jpeg, image\/png/);

    const big = await upload(h, { bytes: Buffer.alloc(5 * 1024 * 1024 + 1), type: "image/png" });
    expect(big.json.error).toMatchObject({ code: 131053 });
    expect((await upload(h, { bytes: Buffer.alloc(5 * 1024 * 1024), type: "image/png" })).status).toBe(200);

    expect((await upload(h, { bytes: webp(101 * 1024, false), type: "image/webp" })).json.error.code).toBe(131053);
    expect((await upload(h, { bytes: webp(200 * 1024, true), type: "image/webp" })).status).toBe(200);
    expect((await upload(h, { bytes: webp(501 * 1024, true), type: "image/webp" })).json.error.code).toBe(131053);

    const voice = await upload(h, { bytes: Buffer.from("OggS0000"), type: "audio/ogg; codecs=opus" });
    expect(voice.status).toBe(200);
    expect((await h.graph(voice.json.id, { token: h.token })).json.mime_type).toBe("audio/ogg; codecs=opus");
    // The file part's own type stands in for a missing `type` field.
    expect((await upload(h, { bytes: PDF, contentType: "application/pdf" })).status).toBe(200);

    expect((await upload(h, { bytes: JPEG, type: "image/jpeg" }, { product: null })).json.error.code).toBe(100);
    expect((await upload(h, { bytes: Buffer.alloc(0), type: "image/jpeg" })).json.error.code).toBe(131053);
    const notMultipart = await h.graph(`${h.business.phoneNumberId}/media`, {
      method: "POST",
      token: h.token,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ messaging_product: "whatsapp" }),
    });
    expect(notMultipart.status).toBe(400);
    expect(notMultipart.json.error.code).toBe(100);
  });

  it("refuses a body over the largest file with Meta's envelope, and takes faults on each media step", async () => {
    h = await startSending();
    const huge = await h.graph(`${h.business.phoneNumberId}/media`, {
      method: "POST",
      token: h.token,
      headers: { "Content-Type": "multipart/form-data; boundary=x" },
      body: new Uint8Array(101 * 1024 * 1024),
    });
    expect(huge.status).toBe(413);
    expect(huge.json.error.code).toBe(100);

    for (const step of ["media.upload", "media.get", "media.download", "media.delete"] as const)
      h.sandbox.injectFault({ step, error: { status: 500, code: 131016, isTransient: true } });
    expect((await upload(h, { bytes: JPEG, type: "image/jpeg" })).json.error.code).toBe(131016);
    const id = (await upload(h, { bytes: JPEG, type: "image/jpeg" })).json.id as string;
    expect((await h.graph(id, { token: h.token })).json.error.code).toBe(131016);
    const url = (await h.graph(id, { token: h.token })).json.url as string;
    const faulted = await fetch(url, { headers: { Authorization: `Bearer ${h.token}` } });
    expect(faulted.status).toBe(500);
    expect((await fetch(url, { headers: { Authorization: `Bearer ${h.token}` } })).status).toBe(200);
    expect((await h.graph(id, { method: "DELETE", token: h.token })).json.error.code).toBe(131016);
    expect(
      h.sandbox
        .calls()
        .filter((c) => c.step === "media.download")
        .map((c) => c.status),
    ).toEqual([500, 200]);
  });
});

describe("parseMultipart", () => {
  it("reads fields and files, quoted or not, and refuses what is not multipart", () => {
    const body = Buffer.from(
      '--b\r\nContent-Disposition: form-data; name="type"\r\n\r\nimage/png\r\n' +
        '--b\r\nContent-Disposition: form-data; name=file; filename="a \\"b\\".png"\r\nContent-Type: image/png\r\n\r\n\r\n--not-the-end\r\n' +
        "--b--\r\n",
    );
    const form = parseMultipart(body, 'multipart/form-data; boundary="b"');
    expect(form?.fields.get("type")).toBe("image/png");
    expect(form?.files.get("file")).toMatchObject({ fileName: 'a "b".png', contentType: "image/png" });
    expect(form?.files.get("file")?.bytes.toString()).toBe("\r\n--not-the-end");
    expect(parseMultipart(body, "application/json")).toBeUndefined();
    expect(parseMultipart(Buffer.from("--b\r\nno headers end"), "multipart/form-data; boundary=b")).toBeUndefined();
  });
});
