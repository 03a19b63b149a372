/**
 * S3's errors as S3 sends them: an HTTP status and an XML body
 * `<Error><Code>..</Code><Message>..</Message>...<RequestId>..</RequestId></Error>` (none on HEAD).
 */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Further elements S3 puts in this error's body (`Key`, `BucketName`, `StringToSign`, ...). */
    readonly details: Record<string, string | number> = {},
  ) {
    super(message);
  }
}

export const errors = {
  noSuchBucket: (bucket: string) => new S3Error(404, "NoSuchBucket", "The specified bucket does not exist", { BucketName: bucket }),
  noSuchKey: (key: string) => new S3Error(404, "NoSuchKey", "The specified key does not exist.", { Key: key }),
  noSuchUpload: (uploadId: string) =>
    new S3Error(
      404,
      "NoSuchUpload",
      "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
      {
        UploadId: uploadId,
      },
    ),
  malformedXml: () =>
    new S3Error(400, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema"),
  invalidArgument: (message: string, name?: string, value?: string) =>
    new S3Error(400, "InvalidArgument", message, name === undefined ? {} : { ArgumentName: name, ArgumentValue: value ?? "" }),
  invalidRequest: (message: string) => new S3Error(400, "InvalidRequest", message),
  notImplemented: (message: string) => new S3Error(501, "NotImplemented", message),
  accessDenied: (message = "Access Denied") => new S3Error(403, "AccessDenied", message),
  badDigest: (what: string) => new S3Error(400, "BadDigest", `The ${what} you specified did not match the calculated checksum.`),
};

export function xmlEscape(text: string) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);
}

export function xmlUnescape(text: string) {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_m, entity: string) => {
    if (entity.startsWith("#x")) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith("#")) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[entity]!;
  });
}

/** `<Name>value</Name>` for each entry, values escaped; nested arrays of strings are already XML. */
export function xmlElements(fields: Record<string, string | number | boolean | undefined>) {
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `<${name}>${xmlEscape(String(value))}</${name}>`)
    .join("");
}

export function errorXml(error: S3Error, resource: string, requestId: string) {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error>` +
    xmlElements({ Code: error.code, Message: error.message, ...error.details, Resource: resource, RequestId: requestId }) +
    `</Error>`
  );
}
