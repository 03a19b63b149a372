/**
 * A streamed CSV reader (RFC 4180, as spreadsheets write it): bytes in, records out, with the byte
 * offset after each record so an interrupted read can start again at a record's end. Quoted fields
 * may hold delimiters, doubled quotes and line breaks; lines end in CRLF, LF or CR; a UTF-8 byte
 * order mark is read past; the delimiter (comma, semicolon as Excel writes it in locales with a
 * decimal comma, or tab) is taken from the header line, or from Excel's `sep=;` first line. Every
 * field, record and column count is bounded, and a file that is not UTF-8 text is refused.
 */

import { m } from "~/paraglide/messages";

export class CsvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CsvError";
  }
}

export interface CsvRecord {
  fields: string[];
  /** The line the record starts on (1-based, counting the file's physical lines). */
  line: number;
  /** The byte offset right after the record's line break: where reading may start again. */
  end: number;
}

export interface CsvLimits {
  /** Bytes of one field, at most. */
  maxFieldBytes: number;
  /** Bytes of one record (line breaks inside quotes included), at most. */
  maxRecordBytes: number;
  /** Fields of one record, at most. */
  maxColumns: number;
}

export const DEFAULT_CSV_LIMITS: CsvLimits = { maxFieldBytes: 16 * 1024, maxRecordBytes: 64 * 1024, maxColumns: 200 };

export interface CsvOptions {
  limits?: Partial<CsvLimits>;
  /** The delimiter when it is known already (a resumed read); otherwise it is detected. */
  delimiter?: string;
  /** Start reading at this byte offset (a record's `end`): the bytes before it are skipped, BOM and header included. */
  startAt?: number;
}

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const DELIMITERS = [0x2c, 0x3b, 0x09] as const; // , ; tab
const NAMES: Record<number, string> = { 0x2c: "comma", 0x3b: "semicolon", 0x09: "tab" };

const enum State {
  FieldStart,
  Unquoted,
  Quoted,
  QuoteInQuoted,
}

/** Signatures of files people upload by mistake, with what to do instead. */
// Functions, not words: each is said in the request's language when a file is refused.
const NOT_CSV: { magic: number[]; refusal: () => string }[] = [
  { magic: [0x50, 0x4b, 0x03, 0x04], refusal: m.messaging_csv_not_csv_zip },
  { magic: [0xd0, 0xcf, 0x11, 0xe0], refusal: m.messaging_csv_not_csv_xls },
  { magic: [0x25, 0x50, 0x44, 0x46], refusal: m.messaging_csv_not_csv_pdf },
  { magic: [0xff, 0xfe], refusal: m.messaging_csv_not_csv_utf16 },
  { magic: [0xfe, 0xff], refusal: m.messaging_csv_not_csv_utf16 },
];

/**
 * Push-style parser: `push(chunk)` answers the records the chunk completes, `end()` the last one.
 * Memory is one record and one chunk at most.
 */
export class CsvParser {
  private readonly limits: CsvLimits;
  private delimiterByte: number | undefined;
  /** Absolute offset of the next byte the state machine sees. */
  private offset: number;
  private skip: number;
  private checkedStart: boolean;
  /** Bytes held back until the header line is complete (delimiter detection). */
  private head: Buffer | null = null;
  private state = State.FieldStart;
  private field: Buffer = Buffer.allocUnsafe(256);
  private fieldLength = 0;
  private fieldAscii = true;
  private fields: string[] = [];
  private recordBytes = 0;
  private line = 1;
  private recordLine = 1;
  private previous = -1;
  private records = 0;
  private readonly resumed: boolean;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

  constructor(options: CsvOptions = {}) {
    this.limits = { ...DEFAULT_CSV_LIMITS, ...options.limits };
    this.skip = options.startAt ?? 0;
    this.offset = 0;
    this.checkedStart = this.resumed = this.skip > 0;
    if (options.delimiter !== undefined) {
      const byte = options.delimiter.charCodeAt(0);
      if (options.delimiter.length !== 1 || !(DELIMITERS as readonly number[]).includes(byte))
        throw new CsvError("The delimiter must be a comma, a semicolon or a tab.");
      this.delimiterByte = byte;
    } else if (this.skip > 0) throw new CsvError("A read that starts past the header needs the delimiter.");
  }

  /** The delimiter in use (known once the header line has been read). */
  get delimiter(): string | undefined {
    return this.delimiterByte === undefined ? undefined : String.fromCharCode(this.delimiterByte);
  }

  push(input: Uint8Array): CsvRecord[] {
    let chunk = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    if (this.skip > 0) {
      const skipped = Math.min(this.skip, chunk.length);
      this.skip -= skipped;
      this.offset += skipped;
      chunk = chunk.subarray(skipped);
      if (!chunk.length) return [];
    }
    const out: CsvRecord[] = [];
    if (this.delimiterByte === undefined) {
      this.head = this.head ? Buffer.concat([this.head, chunk]) : Buffer.from(chunk);
      const detected = this.detect(false);
      if (!detected) return out;
      chunk = detected;
    }
    this.run(chunk, out);
    return out;
  }

  end(): CsvRecord[] {
    const out: CsvRecord[] = [];
    if (this.delimiterByte === undefined) {
      if (!this.head?.length) throw new CsvError(m.messaging_csv_empty());
      const rest = this.detect(true);
      if (rest) this.run(rest, out);
    }
    if (this.state === State.Quoted) throw new CsvError(m.messaging_csv_quote_not_closed({ line: this.recordLine }));
    if (this.state !== State.FieldStart || this.fields.length) this.endRecord(out, this.offset);
    if (!this.records && !this.resumed) throw new CsvError(m.messaging_csv_empty());
    return out;
  }

  /** Once the header line is whole (or the input ended): checks the start, picks the delimiter, answers the bytes to parse. */
  private detect(ended: boolean): Buffer | null {
    let head = this.head!;
    if (!this.checkedStart) {
      if (head.length < 4 && !ended) return null;
      for (const { magic, refusal } of NOT_CSV) if (magic.every((b, i) => head[i] === b)) throw new CsvError(refusal());
      this.checkedStart = true;
      if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) {
        head = head.subarray(3);
        this.offset += 3;
      }
    }
    // The header line: up to the first line break outside quotes.
    let quoted = false;
    let endOfLine = -1;
    const counts = new Map<number, number>(DELIMITERS.map((d) => [d, 0]));
    for (let i = 0; i < head.length; i++) {
      const b = head[i]!;
      if (b === 0) throw notText();
      if (b === QUOTE) quoted = !quoted;
      else if (!quoted && (b === LF || b === CR)) {
        endOfLine = i;
        break;
      } else if (!quoted && counts.has(b)) counts.set(b, counts.get(b)! + 1);
    }
    if (endOfLine < 0 && !ended) {
      if (head.length > this.limits.maxRecordBytes)
        throw new CsvError(m.messaging_csv_first_line_too_long({ max: this.limits.maxRecordBytes }));
      this.head = head;
      return null;
    }
    this.head = null;
    const line = head.subarray(0, endOfLine < 0 ? head.length : endOfLine).toString("latin1");
    // Excel's own hint, `sep=;`, on a line of its own before the header.
    const hint = /^"?sep=(.)"?$/i.exec(line);
    if (hint) {
      const byte = hint[1]!.charCodeAt(0);
      if (!(DELIMITERS as readonly number[]).includes(byte)) throw new CsvError(m.messaging_csv_bad_delimiter({ delimiter: hint[1]! }));
      this.delimiterByte = byte;
      let next = endOfLine < 0 ? head.length : endOfLine + 1;
      if (head[endOfLine] === CR && head[next] === LF) next++;
      this.offset += next;
      this.line++;
      this.recordLine = this.line;
      this.previous = head[next - 1]!;
      const rest = head.subarray(next);
      if (!rest.length) return null;
      // The header line itself may hold any delimiter now that it is known.
      return rest;
    }
    let best: number = DELIMITERS[0];
    for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
    this.delimiterByte = best;
    return head;
  }

  private run(chunk: Buffer, out: CsvRecord[]) {
    const delimiter = this.delimiterByte!;
    const { maxRecordBytes } = this.limits;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      // Fast path: a run of ordinary bytes inside a field is copied at once.
      if (this.state === State.Unquoted || this.state === State.Quoted) {
        const quoted = this.state === State.Quoted;
        let j = i;
        let high = 0;
        while (j < n) {
          const c = chunk[j]!;
          if (c === LF || c === CR || c === 0 || (quoted ? c === QUOTE : c === delimiter)) break;
          high |= c;
          j++;
        }
        if (j > i) {
          this.appendRun(chunk, i, j, high);
          this.previous = chunk[j - 1]!;
          i = j;
          if (i >= n) break;
        }
      }
      const b = chunk[i]!;
      const at = this.offset + i;
      if (b === 0) throw notText();
      // Lines: a CR, an LF, or a CRLF counted once.
      if (b === CR || (b === LF && this.previous !== CR)) this.line++;
      this.previous = b;
      if (++this.recordBytes > maxRecordBytes)
        throw new CsvError(recordTooLong(this.recordLine, maxRecordBytes, this.state === State.Quoted));
      switch (this.state) {
        case State.FieldStart:
          if (b === QUOTE) {
            this.state = State.Quoted;
            break;
          }
          this.state = State.Unquoted;
        // falls through: the byte starts an unquoted field
        case State.Unquoted:
          if (b === delimiter) this.endField(State.FieldStart);
          else if (b === LF || b === CR) this.lineBreak(out, at);
          else this.append(b);
          break;
        case State.Quoted:
          if (b === QUOTE) this.state = State.QuoteInQuoted;
          else this.append(b);
          break;
        case State.QuoteInQuoted:
          if (b === QUOTE) {
            this.append(QUOTE);
            this.state = State.Quoted;
          } else if (b === delimiter) this.endField(State.FieldStart);
          else if (b === LF || b === CR) this.lineBreak(out, at);
          else {
            // Text after a closing quote ("ab"c): kept as text, as spreadsheets do.
            this.append(b);
            this.state = State.Unquoted;
          }
          break;
      }
    }
    this.offset += chunk.length;
  }

  private lineBreak(out: CsvRecord[], at: number) {
    // A CR followed by LF: the record ends after the CR, and the LF is an empty line, skipped.
    this.endRecord(out, at + 1);
    this.recordLine = this.line;
  }

  private appendRun(chunk: Buffer, from: number, to: number, high: number) {
    const length = to - from;
    if ((this.recordBytes += length) > this.limits.maxRecordBytes)
      throw new CsvError(recordTooLong(this.recordLine, this.limits.maxRecordBytes, this.state === State.Quoted));
    if (this.fieldLength + length > this.limits.maxFieldBytes)
      throw new CsvError(m.messaging_csv_field_too_long({ line: this.recordLine, max: this.limits.maxFieldBytes }));
    if (this.fieldLength + length > this.field.length) {
      let size = this.field.length * 2;
      while (size < this.fieldLength + length) size *= 2;
      const grown = Buffer.allocUnsafe(Math.min(size, this.limits.maxFieldBytes));
      this.field.copy(grown, 0, 0, this.fieldLength);
      this.field = grown;
    }
    chunk.copy(this.field, this.fieldLength, from, to);
    this.fieldLength += length;
    if (high & 0x80) this.fieldAscii = false;
  }

  private append(b: number) {
    if (this.fieldLength >= this.limits.maxFieldBytes)
      throw new CsvError(m.messaging_csv_field_too_long({ line: this.recordLine, max: this.limits.maxFieldBytes }));
    if (this.fieldLength === this.field.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.field.length * 2, this.limits.maxFieldBytes));
      this.field.copy(grown, 0, 0, this.fieldLength);
      this.field = grown;
    }
    this.field[this.fieldLength++] = b;
    if (b >= 0x80) this.fieldAscii = false;
  }

  private endField(next: State) {
    if (this.fields.length >= this.limits.maxColumns)
      throw new CsvError(m.messaging_csv_too_many_columns({ line: this.recordLine, max: this.limits.maxColumns }));
    let text: string;
    if (this.fieldAscii) text = this.field.toString("latin1", 0, this.fieldLength);
    else {
      try {
        text = this.decoder.decode(this.field.subarray(0, this.fieldLength));
      } catch {
        throw new CsvError(m.messaging_csv_not_utf8({ line: this.recordLine }));
      }
    }
    this.fields.push(text);
    this.fieldLength = 0;
    this.fieldAscii = true;
    this.state = next;
  }

  private endRecord(out: CsvRecord[], end: number) {
    this.endField(State.FieldStart);
    const fields = this.fields;
    this.fields = [];
    this.recordBytes = 0;
    // Blank lines, and rows of empty cells (Excel writes “;;;” for a formatted empty row), are no records.
    if (fields.every((f) => f === "")) return;
    this.records++;
    out.push({ fields, line: this.recordLine, end });
  }
}

const notText = () => new CsvError(m.messaging_csv_binary());

/** A record over the limit, and whether a quote mark was left open. */
const recordTooLong = (line: number, max: number, quoted: boolean) =>
  quoted ? m.messaging_csv_record_too_long_quoted({ line, max }) : m.messaging_csv_record_too_long({ line, max });

/** The records of a byte stream, one at a time. */
export async function* csvRecords(source: AsyncIterable<Uint8Array>, options: CsvOptions = {}): AsyncGenerator<CsvRecord, void, undefined> {
  const parser = new CsvParser(options);
  for await (const chunk of source) for (const record of parser.push(chunk)) yield record;
  for (const record of parser.end()) yield record;
}

/** The delimiter's name for people ("semicolon"). */
export const delimiterName = (delimiter: string) => NAMES[delimiter.charCodeAt(0)] ?? delimiter;

/** Header cells as column names: trimmed, each present and once (case-insensitively). */
export function headerColumns(fields: string[]): string[] {
  const columns = fields.map((f, i) => f.replace(/\p{Cc}/gu, " ").trim() || m.messaging_csv_column_default({ number: i + 1 }));
  const seen = new Set<string>();
  for (const c of columns) {
    if (c.length > 100) throw new CsvError(m.messaging_csv_header_too_long({ header: c.slice(0, 40) }));
    const key = c.toLowerCase();
    if (seen.has(key)) throw new CsvError(m.messaging_csv_header_twice({ column: c }));
    seen.add(key);
  }
  return columns;
}
