import { describe, expect, it } from "vitest";
import { MultipartError, MultipartReader, multipartBoundary } from "./multipart";

/** A body cut into chunks of `size` bytes, as a socket may deliver it. */
function stream(body: string | Buffer, size: number): ReadableStream<Uint8Array> {
  const bytes = typeof body === "string" ? Buffer.from(body, "latin1") : body;
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(at, at + size)));
      at += size;
    },
  });
}

async function readAll(body: string | Buffer, size: number, maxBytes = 1 << 20) {
  const reader = new MultipartReader(stream(body, size), "XyZ", { maxBytes });
  const parts: { name: string; fileName?: string; contentType: string; bytes: string }[] = [];
  for (let part = await reader.next(); part; part = await reader.next()) {
    const chunks: Buffer[] = [];
    for await (const chunk of reader.chunks()) chunks.push(chunk);
    parts.push({ ...part, bytes: Buffer.concat(chunks).toString("latin1") });
  }
  return parts;
}

// The file's bytes hold almost-boundaries: line breaks and dashes, a boundary cut short, and one without its line break.
const tricky = "line one\r\n--XyY-not-quite\r\n-\r\n--Xy\r\n\r\n--X\r--XyZ";
const body = [
  "preamble to ignore\r\n",
  "--XyZ\r\n",
  'Content-Disposition: form-data; name="messaging_product"\r\n\r\n',
  "whatsapp\r\n",
  "--XyZ\r\n",
  'Content-Disposition: form-data; name="file"; filename="a;b \\"c\\".txt"\r\n',
  "Content-Type: Text/CSV; charset=utf-8\r\n\r\n",
  tricky.replace(/--XyZ$/, "x--XyZ"),
  "\r\n--XyZ\r\n",
  "Content-Disposition: form-data; name=\"doc\"; filename*=UTF-8''ripoti%20ya%20mwezi.pdf\r\n\r\n",
  "\r\n--XyZ--\r\nepilogue",
].join("");

describe("the multipart reader", () => {
  it("reads the same parts whatever the chunk size, with bytes that look like boundaries kept", async () => {
    const expected = [
      { name: "messaging_product", fileName: undefined, contentType: "", bytes: "whatsapp" },
      { name: "file", fileName: 'a;b "c".txt', contentType: "text/csv", bytes: tricky.replace(/--XyZ$/, "x--XyZ") },
      { name: "doc", fileName: "ripoti ya mwezi.pdf", contentType: "", bytes: "" },
    ];
    for (const size of [1, 2, 3, 5, 7, 16, 64, 4096]) expect(await readAll(body, size), `chunks of ${size}`).toEqual(expected);
  });

  it("counts a part with no Content-Type, or text/plain (RFC 7578's default), as undeclared: the bytes decide", async () => {
    const plain = '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhi\r\n--XyZ--';
    expect(await readAll(plain, 64)).toEqual([{ name: "file", fileName: "a.txt", contentType: "", bytes: "hi" }]);
  });

  it("skips a part the caller did not read", async () => {
    const reader = new MultipartReader(stream(body, 5), "XyZ", { maxBytes: 1 << 20 });
    expect((await reader.next())?.name).toBe("messaging_product");
    expect((await reader.next())?.name).toBe("file");
    expect((await reader.next())?.name).toBe("doc");
    expect(await reader.next()).toBeNull();
    expect(await reader.next()).toBeNull();
  });

  it("refuses a body over its limit as too large, and malformed bodies as malformed", async () => {
    await expect(readAll(body, 16, 100)).rejects.toMatchObject({ tooLarge: true });
    const malformed = [
      "no boundary at all",
      "--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nunfinished",
      `--XyZ\r\nContent-Disposition: form-data; name=a\r\nX-Long: ${"h".repeat(17000)}\r\n\r\nx\r\n--XyZ--`,
      "--XyZgarbage\r\n",
      "",
    ];
    for (const text of malformed) {
      const error = await readAll(text, 7).catch((e: unknown) => e);
      expect(error, text.slice(0, 40)).toBeInstanceOf(MultipartError);
      expect((error as MultipartError).tooLarge).toBe(false);
    }
    // A part that is not form-data is no field of the form: it is read past.
    const strays = [
      "--XyZ\r\nContent-Type: text/plain\r\n\r\nno disposition\r\n--XyZ--",
      "--XyZ\r\nContent-Disposition: attachment; name=a\r\n\r\nx\r\n--XyZ--",
    ];
    for (const text of strays) expect(await readAll(text, 7), text.slice(0, 40)).toEqual([]);
    // A body that breaks off (the client went away) is malformed, not a server error.
    let sent = false;
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new Error("aborted"));
        sent = true;
        controller.enqueue(new Uint8Array(Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nab')));
      },
    });
    const reader = new MultipartReader(broken, "XyZ", { maxBytes: 1000 });
    await reader.next();
    await expect(
      (async () => {
        for await (const chunk of reader.chunks()) void chunk;
      })(),
    ).rejects.toThrow("could not be read");
    // Cut short while the caller was busy elsewhere: the error waits for it, it is not thrown at the process.
    const cut = new MultipartReader(stream('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc', 64), "XyZ", {
      maxBytes: 1000,
    });
    await cut.next();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(
      (async () => {
        for await (const chunk of cut.chunks()) void chunk;
      })(),
    ).rejects.toBeInstanceOf(MultipartError);
    const many = `${Array.from({ length: 20 }, (_, i) => `--XyZ\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`).join("")}--XyZ--`;
    await expect(readAll(many, 64)).rejects.toThrow("too many parts");
  });

  it("finds the boundary of a multipart/form-data Content-Type only", () => {
    expect(multipartBoundary("multipart/form-data; boundary=----abc123")).toBe("----abc123");
    expect(multipartBoundary('Multipart/Form-Data; charset=utf-8; boundary="a b:c"')).toBe("a b:c");
    expect(multipartBoundary("multipart/mixed; boundary=abc")).toBeUndefined();
    expect(multipartBoundary("multipart/form-data")).toBeUndefined();
    expect(multipartBoundary(`multipart/form-data; boundary=${"x".repeat(71)}`)).toBeUndefined();
    expect(multipartBoundary(null)).toBeUndefined();
  });
});
