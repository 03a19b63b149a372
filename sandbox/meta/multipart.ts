/**
 * A small multipart/form-data reader for POST /{phone-number-id}/media: the whole body is already
 * in memory (bounded by the route's raw parser), so parts are found with Buffer.indexOf. Returns
 * undefined for anything that is not well-formed multipart.
 */

export interface FormFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

export interface FormData {
  fields: Map<string, string>;
  files: Map<string, FormFile>;
}

const MAX_PARTS = 20;
const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");

export function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) return undefined;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

export function parseMultipart(body: Buffer, contentType: string | undefined): FormData | undefined {
  const boundary = boundaryOf(contentType);
  if (!boundary) return undefined;
  const delimiter = Buffer.from(`--${boundary}`);
  // Every part after the first starts with CRLF and the delimiter.
  const separator = Buffer.concat([CRLF, delimiter]);
  const form: FormData = { fields: new Map(), files: new Map() };
  let at = body.indexOf(delimiter);
  if (at < 0) return undefined;
  at += delimiter.length;
  for (let parts = 0; parts <= MAX_PARTS; parts++) {
    // "--" after a delimiter closes the body.
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return form;
    if (!body.subarray(at, at + 2).equals(CRLF)) return undefined;
    const headerEnd = body.indexOf(HEADER_END, at + 2);
    if (headerEnd < 0) return undefined;
    const headers = parseHeaders(body.subarray(at + 2, headerEnd).toString("utf8"));
    const start = headerEnd + HEADER_END.length;
    const end = body.indexOf(separator, start);
    if (end < 0) return undefined;
    const disposition = headers.get("content-disposition") ?? "";
    const name = attribute(disposition, "name");
    if (!/^form-data\b/i.test(disposition) || name === undefined) return undefined;
    const fileName = attribute(disposition, "filename");
    const content = body.subarray(start, end);
    if (fileName !== undefined)
      form.files.set(name, { fileName, contentType: headers.get("content-type") ?? "application/octet-stream", bytes: content });
    else form.fields.set(name, content.toString("utf8"));
    at = end + separator.length;
  }
  return undefined;
}

function parseHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** A Content-Disposition attribute: name="file" (quoted or not). */
function attribute(disposition: string, key: string): string | undefined {
  const match = new RegExp(`;\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, "i").exec(disposition);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : match[2];
}
