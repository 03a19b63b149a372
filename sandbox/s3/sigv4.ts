import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { S3Error, errors } from "./errors";

/**
 * AWS Signature Version 4 as S3 checks it, in the Authorization header or in a presigned URL's query.
 * S3's own rules (unlike other AWS services): the canonical URI is the path exactly as sent (encoded
 * once by the client, never normalised or encoded again), the payload's hash is the
 * `x-amz-content-sha256` header (required with header auth) and a presigned URL's is
 * `UNSIGNED-PAYLOAD`. A path prefix the sandbox is mounted under is part of the path the client
 * signed, so the sandbox verifies against the full path it received.
 */

export const ALGORITHM = "AWS4-HMAC-SHA256";
const MAX_SKEW_MS = 15 * 60 * 1000;
export const MAX_PRESIGNED_SECONDS = 604_800;

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface SignedRequest {
  method: string;
  /** The path as received, still percent-encoded, without the query. */
  rawPath: string;
  /** The query as received (after `?`), still percent-encoded. */
  rawQuery: string;
  headers: IncomingHttpHeaders;
}

export interface VerifiedRequest {
  accessKeyId: string;
  presigned: boolean;
  /** What the client says of the body: a hex SHA-256, UNSIGNED-PAYLOAD or a STREAMING-* mode. */
  payloadHash: string;
}

interface Scope {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  terminal: string;
}

export const sha256Hex = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: Buffer | string, data: string) => createHmac("sha256", key).update(data).digest();

/** Percent-encoding as SigV4 wants it: everything but A-Z a-z 0-9 - _ . ~ */
export function uriEncode(text: string) {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function decodeLoosely(text: string) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The query's pairs, decoded, in the order sent; a name without `=` has the value "". */
export function queryPairs(rawQuery: string): [string, string][] {
  if (rawQuery === "") return [];
  return rawQuery.split("&").map((part) => {
    const at = part.indexOf("=");
    return at < 0 ? [decodeLoosely(part), ""] : [decodeLoosely(part.slice(0, at)), decodeLoosely(part.slice(at + 1))];
  });
}

function canonicalQuery(pairs: [string, string][]) {
  return pairs
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

function headerValue(headers: IncomingHttpHeaders, name: string) {
  const value = headers[name];
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  return text.trim().replace(/\s+/g, " ");
}

export function canonicalRequest(request: SignedRequest, pairs: [string, string][], signedHeaders: string[], payloadHash: string) {
  return [
    request.method,
    request.rawPath === "" ? "/" : request.rawPath,
    canonicalQuery(pairs),
    signedHeaders.map((name) => `${name}:${headerValue(request.headers, name)}\n`).join(""),
    signedHeaders.join(";"),
    payloadHash,
  ].join("\n");
}

export function signingKey(secret: string, date: string, region: string, service: string) {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), "aws4_request");
}

/** `20261130T185700Z` as a time, or undefined. */
export function parseAmzDate(text: string | undefined): number | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text ?? "");
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
}

function parseScope(credential: string, malformed: (message: string) => S3Error): Scope {
  const parts = credential.split("/");
  if (parts.length !== 5 || parts.some((part) => part === ""))
    throw malformed(
      `The authorization header is malformed; the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".`,
    );
  const [accessKeyId, date, region, service, terminal] = parts as [string, string, string, string, string];
  return { accessKeyId, date, region, service, terminal };
}

export interface VerifyOptions {
  credentials: ReadonlyMap<string, string>;
  region: string;
  now: number;
}

function checkScope(
  scope: Scope,
  amzDate: string,
  options: VerifyOptions,
  malformed: (message: string, extra?: Record<string, string>) => S3Error,
) {
  if (!options.credentials.has(scope.accessKeyId))
    throw new S3Error(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.", {
      AWSAccessKeyId: scope.accessKeyId,
    });
  if (scope.date !== amzDate.slice(0, 8)) throw malformed("Invalid credential date. Date is not the same as X-Amz-Date.");
  if (scope.region !== options.region)
    throw malformed(`The authorization header is malformed; the region '${scope.region}' is wrong; expecting '${options.region}'`, {
      Region: options.region,
    });
  if (scope.service !== "s3")
    throw malformed(`The authorization header is malformed; incorrect service "${scope.service}". This endpoint belongs to "s3".`);
  if (scope.terminal !== "aws4_request")
    throw malformed(`The authorization header is malformed; incorrect terminal "${scope.terminal}". This endpoint uses "aws4_request".`);
}

function checkSignature(scope: Scope, amzDate: string, canonical: string, provided: string, options: VerifyOptions) {
  const stringToSign = [ALGORITHM, amzDate, `${scope.date}/${scope.region}/${scope.service}/${scope.terminal}`, sha256Hex(canonical)].join(
    "\n",
  );
  const secret = options.credentials.get(scope.accessKeyId)!;
  const expected = createHmac("sha256", signingKey(secret, scope.date, scope.region, scope.service))
    .update(stringToSign)
    .digest("hex");
  const same = provided.length === expected.length && timingSafeEqual(Buffer.from(provided), Buffer.from(expected));
  if (!same)
    throw new S3Error(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
      { AWSAccessKeyId: scope.accessKeyId, StringToSign: stringToSign, SignatureProvided: provided, CanonicalRequest: canonical },
    );
}

function verifyHeaderAuth(request: SignedRequest, authorization: string, options: VerifyOptions): VerifiedRequest {
  const malformed = (message: string, extra: Record<string, string> = {}) =>
    new S3Error(400, "AuthorizationHeaderMalformed", message, extra);
  const fields = new Map<string, string>();
  for (const part of authorization.slice(ALGORITHM.length).split(",")) {
    const at = part.indexOf("=");
    if (at > 0) fields.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  const credential = fields.get("Credential");
  const signedHeaderList = fields.get("SignedHeaders");
  const signature = fields.get("Signature");
  if (!credential || !signedHeaderList || !signature)
    throw malformed("The authorization header is malformed; it must contain Credential, SignedHeaders and Signature.");
  const payloadHash = headerValue(request.headers, "x-amz-content-sha256");
  if (payloadHash === "") throw errors.invalidRequest("Missing required header for this request: x-amz-content-sha256");
  const amzDate = headerValue(request.headers, "x-amz-date");
  const time = parseAmzDate(amzDate) ?? Date.parse(headerValue(request.headers, "date"));
  if (Number.isNaN(time)) throw errors.accessDenied("AWS authentication requires a valid Date or x-amz-date header");
  const scope = parseScope(credential, malformed);
  const signedDate = amzDate !== "" ? amzDate : new Date(time).toISOString().replace(/[-:]|\.\d{3}/g, "");
  checkScope(scope, signedDate, options, malformed);
  if (Math.abs(options.now - time) > MAX_SKEW_MS)
    throw new S3Error(403, "RequestTimeTooSkewed", "The difference between the request time and the current time is too large.", {
      RequestTime: signedDate,
      ServerTime: new Date(options.now).toISOString(),
      MaxAllowedSkewMilliseconds: MAX_SKEW_MS,
    });
  const signedHeaders = signedHeaderList.split(";");
  if (!signedHeaders.includes("host")) throw errors.accessDenied("There were headers present in the request which were not signed");
  const unsigned = Object.keys(request.headers).filter((name) => name.startsWith("x-amz-") && !signedHeaders.includes(name));
  if (unsigned.length > 0)
    throw new S3Error(403, "AccessDenied", "There were headers present in the request which were not signed", {
      HeadersNotSigned: unsigned.join(", "),
    });
  const pairs = queryPairs(request.rawQuery);
  checkSignature(scope, signedDate, canonicalRequest(request, pairs, signedHeaders, payloadHash), signature, options);
  return { accessKeyId: scope.accessKeyId, presigned: false, payloadHash };
}

const PRESIGN_PARAMS = ["X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Expires"];

function verifyPresigned(request: SignedRequest, pairs: [string, string][], options: VerifyOptions): VerifiedRequest {
  const queryError = (message: string, extra: Record<string, string> = {}) =>
    new S3Error(400, "AuthorizationQueryParametersError", message, extra);
  const param = (name: string) => pairs.find(([key]) => key === name)?.[1];
  if (PRESIGN_PARAMS.some((name) => param(name) === undefined))
    throw queryError(
      "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.",
    );
  if (param("X-Amz-Algorithm") !== ALGORITHM) throw queryError('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
  const amzDate = param("X-Amz-Date")!;
  const time = parseAmzDate(amzDate);
  if (time === undefined) throw queryError("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
  const expiresText = param("X-Amz-Expires")!;
  if (!/^-?\d+$/.test(expiresText)) throw queryError("X-Amz-Expires should be a number");
  const expires = Number(expiresText);
  if (expires < 0) throw queryError("X-Amz-Expires must be non-negative");
  if (expires > MAX_PRESIGNED_SECONDS)
    throw queryError(`X-Amz-Expires must be less than a week (in seconds) that is ${MAX_PRESIGNED_SECONDS}`);
  const scope = parseScope(param("X-Amz-Credential")!, queryError);
  checkScope(scope, amzDate, options, queryError);
  if (time - options.now > MAX_SKEW_MS) throw errors.accessDenied("Request is not valid yet");
  if (options.now > time + expires * 1000)
    throw new S3Error(403, "AccessDenied", "Request has expired", {
      "X-Amz-Expires": expires,
      Expires: new Date(time + expires * 1000).toISOString(),
      ServerTime: new Date(options.now).toISOString(),
    });
  const signedHeaders = param("X-Amz-SignedHeaders")!.split(";");
  if (!signedHeaders.includes("host")) throw errors.accessDenied("There were headers present in the request which were not signed");
  const payloadHash = param("X-Amz-Content-Sha256") ?? "UNSIGNED-PAYLOAD";
  const canonical = canonicalRequest(
    request,
    pairs.filter(([key]) => key !== "X-Amz-Signature"),
    signedHeaders,
    payloadHash,
  );
  checkSignature(scope, amzDate, canonical, param("X-Amz-Signature")!, options);
  return { accessKeyId: scope.accessKeyId, presigned: true, payloadHash };
}

/** Who signed the request, or the error S3 answers. Anonymous requests are refused: nothing here is public. */
export function verifyRequest(request: SignedRequest, options: VerifyOptions): VerifiedRequest {
  const authorization = headerValue(request.headers, "authorization");
  const pairs = queryPairs(request.rawQuery);
  const presigned = pairs.some(([key]) => key === "X-Amz-Signature" || key === "X-Amz-Algorithm" || key === "X-Amz-Credential");
  if (authorization !== "" && presigned)
    throw errors.invalidArgument(
      "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified",
      "Authorization",
      authorization,
    );
  if (presigned) return verifyPresigned(request, pairs, options);
  if (authorization === "") throw errors.accessDenied();
  if (!authorization.startsWith(`${ALGORITHM} `))
    throw errors.invalidRequest("The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.");
  return verifyHeaderAuth(request, authorization, options);
}
