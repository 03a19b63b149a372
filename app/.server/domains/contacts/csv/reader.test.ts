import { describe, expect, it } from "vitest";
import { CsvError, CsvParser, csvRecords, headerColumns, type CsvOptions, type CsvRecord } from "./reader";

/** Parses `input` delivered in chunks of `size` bytes (every size from 1 shows chunk boundaries change nothing). */
function parse(input: string | Buffer, size = 1 << 16, options: CsvOptions = {}) {
  const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : input;
  const parser = new CsvParser(options);
  const records: CsvRecord[] = [];
  for (let at = 0; at < bytes.length; at += size) records.push(...parser.push(bytes.subarray(at, at + size)));
  records.push(...parser.end());
  return { records, fields: records.map((r) => r.fields), delimiter: parser.delimiter };
}

/** The same input at every chunk size from 1 to 7 and whole: the same records. */
function everyChunking(input: string | Buffer, options: CsvOptions = {}) {
  const whole = parse(input, 1 << 16, options);
  for (let size = 1; size <= 7; size++) expect(parse(input, size, options)).toEqual(whole);
  return whole;
}

describe("CsvParser", () => {
  it("reads plain rows with LF, CRLF and CR line ends", () => {
    for (const eol of ["\n", "\r\n", "\r"]) {
      const { fields } = everyChunking(`name,phone${eol}Amina,0712345678${eol}Otieno,0722000000${eol}`);
      expect(fields).toEqual([
        ["name", "phone"],
        ["Amina", "0712345678"],
        ["Otieno", "0722000000"],
      ]);
    }
  });

  it("reads the last row without a line break", () => {
    expect(everyChunking("a,b\n1,2").fields).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
  });

  it("reads quoted fields with commas, doubled quotes and line breaks (RFC 4180)", () => {
    const { fields, records } = everyChunking('name,notes\r\n"Wanjiku, Mary","She said ""habari""\r\nand left"\r\n"",x\r\n');
    expect(fields).toEqual([
      ["name", "notes"],
      ["Wanjiku, Mary", 'She said "habari"\r\nand left'],
      ["", "x"],
    ]);
    expect(records.map((r) => r.line)).toEqual([1, 2, 4]);
  });

  it("keeps Swahili names, accents and emoji intact across chunk boundaries", () => {
    const { fields } = everyChunking('name,tags\nMũthoni Njeri 🌍,mteja 👍\nZuhura Ñandu,"😀,🇰🇪"\n');
    expect(fields[1]).toEqual(["Mũthoni Njeri 🌍", "mteja 👍"]);
    expect(fields[2]).toEqual(["Zuhura Ñandu", "😀,🇰🇪"]);
  });

  it("reads past a UTF-8 byte order mark", () => {
    const { fields, records } = everyChunking("\uFEFFname,phone\nAmina,0712345678\n");
    expect(fields[0]).toEqual(["name", "phone"]);
    // Offsets count the BOM: the header ends after its 3 bytes and "name,phone\n".
    expect(records[0]!.end).toBe(3 + 11);
  });

  it("detects Excel's semicolons (and tabs) from the header line", () => {
    const semi = everyChunking("\uFEFFName;Phone;Amount\r\nAmina;0712 345 678;1,5\r\n");
    expect(semi.delimiter).toBe(";");
    expect(semi.fields[1]).toEqual(["Amina", "0712 345 678", "1,5"]);
    const tab = everyChunking("name\tphone\nAmina\t0712345678\n");
    expect(tab.delimiter).toBe("\t");
    expect(tab.fields[1]).toEqual(["Amina", "0712345678"]);
    // A comma inside a quoted header cell does not count.
    expect(everyChunking('"Name, full";Phone\nA;1\n').delimiter).toBe(";");
  });

  it("follows Excel's sep= line", () => {
    const { fields, delimiter } = everyChunking("sep=;\r\nname;phone,x\r\nAmina;0712\r\n");
    expect(delimiter).toBe(";");
    expect(fields).toEqual([
      ["name", "phone,x"],
      ["Amina", "0712"],
    ]);
  });

  it("skips blank lines and rows of empty cells", () => {
    expect(everyChunking("a;b\n\n;\n1;2\n\r\n;;\n").fields).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
  });

  it("keeps text after a closing quote, as spreadsheets do", () => {
    expect(everyChunking('a\n"ab"c\n').fields[1]).toEqual(["abc"]);
  });

  it("answers each record's end so a read can start again there", () => {
    const text = 'name,phone\r\n"A, B",1\r\nC,"2\r\n3"\r\nD,4\r\n';
    const { records, delimiter } = parse(text);
    const bytes = Buffer.from(text);
    for (const from of records) {
      const rest = parse(bytes, 3, { startAt: from.end, delimiter }).fields;
      expect(rest).toEqual(records.filter((r) => r.end > from.end).map((r) => r.fields));
    }
    expect(records.at(-1)!.end).toBeGreaterThanOrEqual(bytes.length - 1);
  });

  it("needs the delimiter to start past the header", () => {
    expect(() => new CsvParser({ startAt: 10 })).toThrow(CsvError);
    expect(() => new CsvParser({ delimiter: "|" })).toThrow(/comma, a semicolon or a tab/);
  });

  const refused = (input: string | Buffer, message: RegExp, options: CsvOptions = {}) => {
    for (const size of [1, 5, 1 << 16]) expect(() => parse(input, size, options)).toThrow(message);
  };

  it("refuses an empty file", () => {
    refused("", /empty/);
    refused("\uFEFF", /empty/);
  });

  it("refuses binary files: NUL bytes, workbooks, PDFs, UTF-16", () => {
    refused(Buffer.from([0x61, 0x2c, 0x62, 0x0a, 0x31, 0x00, 0x32]), /NUL bytes/);
    refused(Buffer.from([0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70]), /NUL bytes/);
    refused(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]), /Excel workbook/);
    refused(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1]), /old Excel workbook/);
    refused("%PDF-1.7\n", /PDF/);
    refused(Buffer.from("\uFEFFname", "utf16le"), /UTF-16/);
  });

  it("refuses text that is not UTF-8 (Windows-1252 from an old Excel)", () => {
    refused(Buffer.concat([Buffer.from("name\nMu"), Buffer.from([0xe9]), Buffer.from("ni\n")]), /line 2 is not UTF-8/i);
  });

  it("bounds fields, records and columns", () => {
    const limits = { maxFieldBytes: 8, maxRecordBytes: 32, maxColumns: 3 };
    refused("a\n123456789\n", /longer than/, { limits });
    refused(`a\n"${"x,".repeat(20)}\n`, /line 2 is longer than .* quote mark left open/, { limits: { ...limits, maxFieldBytes: 100 } });
    refused("a,b,c,d\n", /more than 3 columns/, { limits });
    refused("a".repeat(40), /first line is longer/, { limits });
  });

  it("refuses a quote never closed", () => {
    refused('a,b\n1,"open\n2,3\n', /starts on line 2 is never closed/);
  });
});

describe("csvRecords", () => {
  it("reads an async stream", async () => {
    async function* chunks() {
      yield Buffer.from("name;ph");
      yield Buffer.from("one\nA;1\n");
    }
    const out: string[][] = [];
    for await (const r of csvRecords(chunks())) out.push(r.fields);
    expect(out).toEqual([
      ["name", "phone"],
      ["A", "1"],
    ]);
  });
});

describe("headerColumns", () => {
  it("names empty headers and refuses a column named twice", () => {
    expect(headerColumns([" Name ", "", "Phone"])).toEqual(["Name", "Column 2", "Phone"]);
    expect(() => headerColumns(["Phone", "phone"])).toThrow(/twice/);
  });
});
