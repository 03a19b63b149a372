/**
 * A streaming reader of multipart/form-data (RFC 7578): parts one after another, each part's body as
 * chunks while they arrive, so a 100 MB upload never sits in memory. The framing is busboy's; this
 * module turns its events into a pull API with backpressure and keeps our bounds: the body as a
 * whole, the number of parts and each text field (busboy bounds each part's headers at 16 KB).
 */
import busboy, { type Busboy } from "busboy";
import type { Readable } from "node:stream";

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
  /** A text field's bytes kept at most: a longer value arrives cut one byte past this, for the caller to refuse. */
  maxFieldBytes?: number;
}

const DEFAULT_MAX_PARTS = 16;
const DEFAULT_MAX_FIELD_BYTES = 64 * 1024;

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

type Part = PartHeaders & ({ stream: Readable } | { value: Buffer });
type Event = { part: Part } | { end: true };

/**
 * Reads `body` part by part: `next()` answers the next part's headers (or null after the last),
 * `chunks()` the current part's bytes. A part not read to its end is skipped by the next `next()`.
 */
export class MultipartReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private readonly parser: Busboy;
  private readonly events: Event[] = [];
  private wake: (() => void) | undefined;
  private failure: unknown;
  private pumping = false;
  private received = 0;
  private parts = 0;
  private current: Part | undefined;
  private done = false;

  constructor(
    body: ReadableStream<Uint8Array> | null,
    boundary: string,
    private readonly limits: MultipartLimits,
  ) {
    this.reader = body?.getReader();
    this.parser = busboy({
      headers: { "content-type": `multipart/form-data; boundary="${boundary}"` },
      // File names are labels here, kept as sent (busboy would cut them to what follows the last slash).
      preservePath: true,
      defParamCharset: "utf8",
      limits: {
        // Our own count refuses a part past the limit; busboy's, one higher, stops it reading headers past that.
        parts: (limits.maxParts ?? DEFAULT_MAX_PARTS) + 1,
        fieldSize: (limits.maxFieldBytes ?? DEFAULT_MAX_FIELD_BYTES) + 1,
      },
    });
    this.parser.on("file", (name, stream, info) =>
      this.arrive({ name, fileName: info.filename ?? "", contentType: declaredType(info.mimeType), stream }),
    );
    this.parser.on("field", (name, value, info) =>
      this.arrive({ name, fileName: undefined, contentType: declaredType(info.mimeType), value: Buffer.from(value, "utf8") }),
    );
    this.parser.on("partsLimit", () => this.fail(new MultipartError("The body has too many parts.")));
    this.parser.on("error", (error: Error) => this.fail(new MultipartError(`${error.message}.`)));
    this.parser.on("finish", () => this.push({ end: true }));
  }

  /** Bytes of the body read so far. */
  get bytesRead() {
    return this.received;
  }

  private arrive(part: Part) {
    // Its errors reach the caller through chunks(); while nobody reads it they must not reach the process.
    if ("stream" in part) part.stream.on("error", () => undefined);
    if (++this.parts > (this.limits.maxParts ?? DEFAULT_MAX_PARTS)) {
      if ("stream" in part) part.stream.resume();
      return this.fail(new MultipartError("The body has too many parts."));
    }
    this.push({ part });
  }

  private push(event: Event) {
    this.events.push(event);
    this.wake?.();
  }

  /** Stops reading: the error goes to whoever waits for a part or for a part's bytes. */
  private fail(error: unknown) {
    if (this.failure) return;
    this.failure = error;
    for (const part of [this.current, ...this.events.map((event) => ("part" in event ? event.part : undefined))])
      if (part && "stream" in part) part.stream.destroy(error as Error);
    void this.reader?.cancel().catch(() => undefined);
    this.wake?.();
  }

  /** Feeds the body to busboy, a chunk at a time, no faster than the parts are read. */
  private async pump() {
    try {
      for (;;) {
        if (this.failure) return;
        const { done, value } = await this.read();
        if (this.failure) return;
        if (done) {
          this.parser.end();
          return;
        }
        this.received += value.byteLength;
        if (this.received > this.limits.maxBytes)
          return this.fail(new MultipartError(`The request body is over ${this.limits.maxBytes} bytes.`, true));
        if (!this.parser.write(value)) await this.drained();
      }
    } catch (error) {
      this.fail(error);
    }
  }

  private async read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    if (!this.reader) return { done: true, value: undefined };
    try {
      return await this.reader.read();
    } catch (error) {
      // A body limit in front (Express's 413) says so itself; anything else is a body that broke off.
      const status = (error as { status?: unknown; cause?: { status?: unknown } } | null) ?? {};
      if (status.status === 413 || status.cause?.status === 413) throw error;
      throw new MultipartError("The request body could not be read to its end.");
    }
  }

  /** Busboy took the chunk but wants no more until a part's reader catches up (or the parse stops). */
  private drained() {
    return new Promise<void>((resolve) => {
      const done = () => {
        this.parser.off("drain", done);
        this.parser.off("error", done);
        this.parser.off("close", done);
        resolve();
      };
      this.parser.on("drain", done);
      this.parser.on("error", done);
      this.parser.on("close", done);
    });
  }

  /** The next event: the parts that arrived before a failure first, then the failure. */
  private async event(): Promise<Event> {
    if (!this.pumping) {
      this.pumping = true;
      void this.pump();
    }
    for (;;) {
      const event = this.events.shift();
      if (event) return event;
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  /** The next part's headers, or null when the body has no more parts. */
  async next(): Promise<PartHeaders | null> {
    if (this.done) return null;
    for await (const chunk of this.chunks()) void chunk;
    const event = await this.event();
    if ("end" in event) {
      this.done = true;
      return null;
    }
    this.current = event.part;
    const { name, fileName, contentType } = event.part;
    return { name, fileName, contentType };
  }

  /** The current part's bytes, as they arrive; ends at the part's closing boundary. */
  async *chunks(): AsyncGenerator<Buffer> {
    const part = this.current;
    if (!part) return;
    if ("value" in part) {
      this.current = undefined;
      if (part.value.length) yield part.value;
      return;
    }
    try {
      // Not destroyed when the caller stops early: next() reads past the rest.
      for await (const chunk of part.stream.iterator({ destroyOnReturn: false })) yield chunk as Buffer;
    } catch (error) {
      throw this.failure ?? new MultipartError(`${(error as Error).message}.`);
    }
    this.current = undefined;
  }
}

/**
 * A part's declared type. Busboy reports a part with no Content-Type as text/plain (RFC 7578's
 * default); our file-type check lets the bytes decide for an undeclared file, so text/plain counts as
 * undeclared here (text sniffs as text/plain all the same).
 */
function declaredType(mimeType: string) {
  const type = mimeType.toLowerCase();
  return type === "text/plain" ? "" : type;
}
