/**
 * A streaming reader of multipart/form-data (RFC 7578): parts one after another, each part's body as
 * chunks while they arrive, so a 100 MB upload never sits in memory. Bounded everywhere: the body
 * as a whole, the number of parts, each part's headers, and the bytes before the first boundary.
 */

export class MultipartError extends Error {
  constructor(
    message: string,
    /** The body went past its byte limit (413), rather than being malformed (400). */
    readonly tooLarge = false,
  ) {
    super(message);
    this.name = "MultipartError";
  }
}

export interface PartHeaders {
  /** The form field's name (Content-Disposition's `name`). */
  name: string;
  /** A file part's name as the client gave it (only a label: never a path here). */
  fileName: string | undefined;
  /** The part's Content-Type, lower case, without parameters; "" when the part has none. */
  contentType: string;
}

export interface MultipartLimits {
  /** The whole body, framing included. */
  maxBytes: number;
  /** Parts read at most. */
  maxParts?: number;
}

const HEADER_LIMIT = 8 * 1024;
const PREAMBLE_LIMIT = 1024;
const CRLF = Buffer.from("\r\n");
const HEADERS_END = Buffer.from("\r\n\r\n");

/** The boundary of a multipart/form-data Content-Type, or undefined when it is not one. */
export function multipartBoundary(contentType: string | null): string | undefined {
  if (!contentType) return undefined;
  const [type, ...params] = contentType.split(";");
  if (type!.trim().toLowerCase() !== "multipart/form-data") return undefined;
  for (const param of params) {
    const match = /^\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s";]{1,70}))\s*$/i.exec(param);
    if (match) return match[1] ?? match[2];
  }
  return undefined;
}

/**
 * Reads `body` part by part: `next()` answers the next part's headers (or null after the last),
 * `chunks()` the current part's bytes. A part not read to its end is skipped by the next `next()`.
 */
export class MultipartReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private readonly delimiter: Buffer;
  private buffer: Buffer;
  private received = 0;
  private ended = false;
  private parts = 0;
  /** Where the reader stands: before the first boundary, right after a boundary, in a part's body, or after the last. */
  private state: "start" | "boundary" | "body" | "done" = "start";

  constructor(
    body: ReadableStream<Uint8Array> | null,
    boundary: string,
    private readonly limits: MultipartLimits,
  ) {
    this.reader = body?.getReader();
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
    // The first boundary has no line break before it: one is supplied so every delimiter looks alike.
    this.buffer = Buffer.from(CRLF);
  }

  /** Bytes of the body read so far. */
  get bytesRead() {
    return this.received;
  }

  private async fill(): Promise<boolean> {
    if (this.ended || !this.reader) {
      this.ended = true;
      return false;
    }
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await this.reader.read();
    } catch (error) {
      // A body limit in front (Express's 413) says so itself; anything else is a body that broke off.
      const status = (error as { status?: unknown; cause?: { status?: unknown } } | null) ?? {};
      if (status.status === 413 || status.cause?.status === 413) throw error;
      throw new MultipartError("The request body could not be read to its end.");
    }
    const { done, value } = next;
    if (done) {
      this.ended = true;
      return false;
    }
    this.received += value.byteLength;
    if (this.received > this.limits.maxBytes) {
      await this.reader.cancel().catch(() => undefined);
      throw new MultipartError(`The request body is over ${this.limits.maxBytes} bytes.`, true);
    }
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, value]) : Buffer.from(value);
    return true;
  }

  /** The next part's headers, or null when the body has no more parts. */
  async next(): Promise<PartHeaders | null> {
    if (this.state === "done") return null;
    if (this.state === "body") for await (const chunk of this.chunks()) void chunk;
    if (this.state === "start") {
      // Anything before the first boundary (a preamble) is ignored, within a small bound.
      let at: number;
      while ((at = this.buffer.indexOf(this.delimiter)) < 0) {
        if (this.buffer.length > PREAMBLE_LIMIT + this.delimiter.length)
          throw new MultipartError("No multipart boundary found in the body.");
        if (!(await this.fill())) throw new MultipartError("No multipart boundary found in the body.");
      }
      this.buffer = this.buffer.subarray(at + this.delimiter.length);
      this.state = "boundary";
    }
    // After a delimiter: "--" ends the body, a line break starts a part.
    while (this.buffer.length < 2) if (!(await this.fill())) throw new MultipartError("The multipart body ends inside a boundary.");
    if (this.buffer[0] === 0x2d && this.buffer[1] === 0x2d) {
      this.state = "done";
      return null;
    }
    let lineEnd: number;
    while ((lineEnd = this.buffer.indexOf(CRLF)) < 0) {
      if (this.buffer.length > 256) throw new MultipartError("A multipart boundary line is malformed.");
      if (!(await this.fill())) throw new MultipartError("The multipart body ends inside a boundary.");
    }
    // Transport padding (spaces, tabs) may follow a boundary; nothing else.
    if (!/^[ \t]*$/.test(this.buffer.toString("latin1", 0, lineEnd))) throw new MultipartError("A multipart boundary line is malformed.");
    this.buffer = this.buffer.subarray(lineEnd + 2);
    if (++this.parts > (this.limits.maxParts ?? 16)) throw new MultipartError("The body has too many parts.");

    let headersEnd: number;
    // A part with no headers at all starts with the blank line itself.
    while ((headersEnd = Buffer.concat([CRLF, this.buffer.subarray(0, HEADER_LIMIT + 4)]).indexOf(HEADERS_END)) < 0) {
      if (this.buffer.length > HEADER_LIMIT) throw new MultipartError("A part's headers are too long.");
      if (!(await this.fill())) throw new MultipartError("The multipart body ends inside a part's headers.");
    }
    const headerText = headersEnd === 0 ? "" : this.buffer.toString("utf8", 0, headersEnd - 2);
    this.buffer = this.buffer.subarray(headersEnd + 2);
    this.state = "body";
    return parsePartHeaders(headerText);
  }

  /** The current part's bytes, as they arrive; ends at the part's closing boundary. */
  async *chunks(): AsyncGenerator<Buffer> {
    if (this.state !== "body") return;
    for (;;) {
      const at = this.buffer.indexOf(this.delimiter);
      if (at >= 0) {
        const last = this.buffer.subarray(0, at);
        // The delimiter is consumed: next() goes on right after it.
        this.buffer = this.buffer.subarray(at + this.delimiter.length);
        this.state = "boundary";
        if (last.length) yield last;
        return;
      }
      // All but a possible start of the delimiter can go out now.
      const safe = this.buffer.length - (this.delimiter.length - 1);
      if (safe > 0) {
        const out = this.buffer.subarray(0, safe);
        this.buffer = this.buffer.subarray(safe);
        yield out;
      }
      if (!(await this.fill())) throw new MultipartError("The multipart body ends before its closing boundary.");
    }
  }
}

function parsePartHeaders(text: string): PartHeaders {
  let name = "";
  let fileName: string | undefined;
  let contentType = "";
  let disposition = false;
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) throw new MultipartError("A part's header is malformed.");
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === "content-disposition") {
      const [kind, ...params] = splitParams(value);
      if (kind!.toLowerCase() !== "form-data") throw new MultipartError("A part's Content-Disposition is not form-data.");
      disposition = true;
      for (const param of params) {
        const eq = param.indexOf("=");
        if (eq < 0) continue;
        const key = param.slice(0, eq).trim().toLowerCase();
        const raw = param.slice(eq + 1).trim();
        const unquoted = raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw;
        if (key === "name") name = unquoted;
        else if (key === "filename") fileName = unquoted;
        else if (key === "filename*") {
          const encoded = /^utf-8''(.*)$/i.exec(unquoted);
          if (encoded) {
            try {
              fileName = decodeURIComponent(encoded[1]!);
            } catch {
              /* a name that does not decode is left as the plain filename */
            }
          }
        }
      }
    } else if (field === "content-type") contentType = value.split(";")[0]!.trim().toLowerCase();
  }
  if (!disposition) throw new MultipartError("A part has no Content-Disposition.");
  return { name, fileName, contentType };
}

/** `form-data; name="a;b"; filename="x"` split at the semicolons outside quotes. */
function splitParams(value: string) {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === "\\" && quoted) {
      current += c + (value[++i] ?? "");
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ";" && !quoted) {
      out.push(current.trim());
      current = "";
    } else current += c;
  }
  out.push(current.trim());
  return out;
}
