import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Request } from "express";
import { fail, ok, param, unsupported, type GraphResult } from "./graph-common";
import type { SandboxStore, Upload } from "./state";
import type { SandboxUpload } from "./types";

const MB = 1024 * 1024;

/** Meta's Resumable Upload API: the types a template sample may have, and their largest sizes. */
export const UPLOAD_TYPES: Record<string, number> = {
  "image/jpeg": 5 * MB,
  "image/png": 5 * MB,
  "video/mp4": 16 * MB,
  "application/pdf": 100 * MB,
};

/** Magic values in file_name (sandbox/README.md, Meta). */
export const UPLOAD_MAGIC = {
  /** The first send keeps half the bytes, then fails as a cut connection would: the client resumes. */
  cut: "cut-once",
} as const;

/** How many finished or abandoned sessions are kept (with their bytes, in memory). */
const KEEP_UPLOADS = 50;

const invalidParam = (message: string, userTitle?: string, userMsg?: string) =>
  fail(400, 100, `(#100) ${message}`, { type: "OAuthException", userTitle, userMsg });

/**
 * Upload sessions, their bytes and the handles issued for them. Sessions are saved with the rest
 * of the sandbox's state; the bytes live in memory only (a restart keeps the handles, which
 * template creation accepts, but the sample's URL then answers 404).
 */
export class UploadDesk {
  private readonly bytes = new Map<string, Buffer>();

  constructor(
    private readonly store: SandboxStore,
    private readonly options: { appId: string; publicPath: string; now: () => number },
  ) {}

  /** POST /{app-id}/uploads?file_name&file_length&file_type → {id: "upload:<key>?sig=<sig>"}. */
  create(req: Request, appId: string, token: { userId: string }): GraphResult {
    if (appId !== this.options.appId) return unsupported("POST", `${appId}/uploads`);
    const fileName = param(req, "file_name");
    const lengthText = param(req, "file_length");
    const fileType = param(req, "file_type");
    if (!fileName) return invalidParam("The parameter file_name is required");
    if (lengthText === undefined) return invalidParam("The parameter file_length is required");
    if (!fileType) return invalidParam("The parameter file_type is required");
    const fileLength = Number(lengthText);
    if (!/^\d+$/.test(lengthText) || !Number.isSafeInteger(fileLength) || fileLength < 1)
      return invalidParam("Param file_length must be a positive integer");
    const limit = UPLOAD_TYPES[fileType];
    if (limit === undefined)
      return invalidParam(
        `Param file_type must be one of {${Object.keys(UPLOAD_TYPES).join(", ")}} - got "${fileType.slice(0, 60)}".`,
        "File type not supported",
        "Upload a JPEG or PNG image, an MP4 video or a PDF document.",
      );
    if (fileLength > limit)
      return invalidParam(
        `The file is too large: ${fileType} files can be ${limit} bytes at most; file_length is ${fileLength}.`,
        "File too large",
        `${fileType} files can be ${limit / MB} MB at most.`,
      );
    const upload: Upload = {
      key: randomBytes(18).toString("base64url"),
      sig: randomBytes(24).toString("base64url"),
      userId: token.userId,
      fileName: fileName.slice(0, 255),
      fileType,
      fileLength,
      offset: 0,
      handle: null,
      cutOnce: fileName.includes(UPLOAD_MAGIC.cut),
      createdAt: this.options.now(),
      completedAt: null,
    };
    this.store.uploads.set(upload.key, upload);
    this.prune();
    this.store.changed();
    return ok({ id: idOf(upload) });
  }

  /** The session an `upload:<key>` path and its `sig` name; undefined when unknown or unsigned. */
  find(id: string, req: Request): Upload | undefined {
    const upload = this.store.uploads.get(id.slice("upload:".length));
    const sig = typeof req.query.sig === "string" ? req.query.sig : "";
    if (!upload || sig.length !== upload.sig.length) return undefined;
    return timingSafeEqual(Buffer.from(sig), Buffer.from(upload.sig)) ? upload : undefined;
  }

  /** GET /{upload-id} → {id, file_offset}: where a cut-short upload resumes. */
  status(upload: Upload): GraphResult {
    return ok({ id: idOf(upload), file_offset: upload.offset });
  }

  /** POST /{upload-id} with `file_offset` and the bytes from there to the end → {h: handle}. */
  send(req: Request, upload: Upload): GraphResult {
    const header = req.get("file_offset");
    if (header === undefined) return invalidParam("The header file_offset is required");
    if (!/^\d+$/.test(header.trim())) return invalidParam("The header file_offset must be a whole number");
    const offset = Number(header.trim());
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (upload.handle && offset === upload.fileLength && body.length === 0) return ok({ h: upload.handle });
    if (offset !== upload.offset)
      return fail(400, 100, `(#100) Invalid file_offset ${offset}: this upload session is at offset ${upload.offset}.`, {
        userTitle: "Wrong file offset",
        userMsg: `Resume the upload from file_offset ${upload.offset} (GET the upload session to read it).`,
        errorData: { file_offset: upload.offset },
      });
    const remaining = upload.fileLength - offset;
    if (body.length !== remaining)
      return fail(
        400,
        100,
        `(#100) The body has ${body.length} bytes, but file_length says ${remaining} remain from file_offset ${offset}.`,
        {
          userTitle: "File length mismatch",
          userMsg: "Send the rest of the file in one request: the bytes from file_offset to file_length.",
        },
      );
    const before = this.bytes.get(upload.key) ?? Buffer.alloc(0);
    if (upload.cutOnce) {
      // The connection dropped halfway: half the bytes arrived, the answer never did.
      upload.cutOnce = false;
      const half = Math.floor(body.length / 2);
      this.bytes.set(upload.key, Buffer.concat([before, body.subarray(0, half)]));
      upload.offset += half;
      this.store.changed();
      return fail(503, 2, "(#2) Service temporarily unavailable: the upload was cut short. Resume it from its file_offset.", {
        isTransient: true,
      });
    }
    this.bytes.set(upload.key, Buffer.concat([before, body]));
    upload.offset = upload.fileLength;
    upload.handle = `4::${Buffer.from(upload.fileType).toString("base64")}:${randomBytes(30).toString("base64url")}`;
    upload.completedAt = this.options.now();
    this.store.changed();
    return ok({ h: upload.handle });
  }

  /**
   * A media header's handle as template creation sees it: the URL Meta stores as the example (a
   * sample URL of the sandbox, as Meta answers an scontent URL), or undefined for a handle it never
   * issued. `origin` is the sandbox's own, from the request.
   */
  exampleUrl(handle: string, origin: string): string | undefined {
    const upload = [...this.store.uploads.values()].find((u) => u.handle !== null && u.handle === handle);
    return upload ? `${origin}${this.options.publicPath}/uploads/${upload.key}` : undefined;
  }

  /** The bytes of a finished upload, for its example URL. */
  file(key: string): { type: string; bytes: Buffer } | undefined {
    const upload = this.store.uploads.get(key);
    const bytes = this.bytes.get(key);
    return upload?.handle && bytes ? { type: upload.fileType, bytes } : undefined;
  }

  list(): SandboxUpload[] {
    return [...this.store.uploads.values()]
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((u) => ({
        id: idOf(u).replace(/\?sig=.*$/, ""),
        fileName: u.fileName,
        fileType: u.fileType,
        fileLength: u.fileLength,
        fileOffset: u.offset,
        handle: u.handle,
        createdAt: new Date(u.createdAt).toISOString(),
        completedAt: u.completedAt ? new Date(u.completedAt).toISOString() : null,
      }));
  }

  reset() {
    this.bytes.clear();
  }

  private prune() {
    const all = [...this.store.uploads.values()].sort((a, b) => a.createdAt - b.createdAt);
    for (const old of all.slice(0, Math.max(0, all.length - KEEP_UPLOADS))) {
      this.store.uploads.delete(old.key);
      this.bytes.delete(old.key);
    }
  }
}

const idOf = (upload: Upload) => `upload:${upload.key}?sig=${upload.sig}`;
