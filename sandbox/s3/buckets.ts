import { sendEmpty, sendXml, type S3Call } from "./call";
import { S3Error, errors, xmlElements } from "./errors";
import { elements, requireBucket } from "./objects";
import { MemorySink, receiveBody } from "./receive";
import type { ObjectMeta } from "./store";

/** ListBuckets, CreateBucket, HeadBucket, DeleteBucket, GetBucketLocation and ListObjectsV2. */

const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const OWNER = "<Owner><ID>jumbe-sandbox</ID><DisplayName>jumbe-sandbox</DisplayName></Owner>";

/** S3's general-purpose bucket names: 3-63 of a-z 0-9 . -, starting and ending with a letter or digit, not an IP address. */
export function validBucketName(name: string) {
  return /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) && !name.includes("..") && !/^\d+\.\d+\.\d+\.\d+$/.test(name);
}

export async function listBuckets(call: S3Call) {
  await receiveBody(call, { sink: new MemorySink(0) });
  const buckets = call.store
    .bucketNames()
    .map(
      ({ name, created }) =>
        `<Bucket>${xmlElements({ Name: name, CreationDate: new Date(created).toISOString(), BucketRegion: call.region })}</Bucket>`,
    )
    .join("");
  sendXml(call, 200, `<ListAllMyBucketsResult ${NS}>${OWNER}<Buckets>${buckets}</Buckets></ListAllMyBucketsResult>`);
}

export async function createBucket(call: S3Call) {
  if (!validBucketName(call.bucket))
    throw new S3Error(400, "InvalidBucketName", "The specified bucket is not valid.", { BucketName: call.bucket });
  const sink = new MemorySink(64 * 1024);
  await receiveBody(call, { sink });
  const constraint = elements(sink.text(), "LocationConstraint")[0]?.trim();
  if (constraint !== undefined && constraint !== "" && constraint !== call.region)
    throw new S3Error(
      400,
      "IllegalLocationConstraintException",
      `The ${constraint} location constraint is incompatible for the region specific endpoint this request was sent to.`,
    );
  if (call.store.hasBucket(call.bucket)) {
    // us-east-1 answers its owner's repeated CreateBucket with 200 (a legacy S3 keeps); other regions 409.
    if (call.region !== "us-east-1")
      throw new S3Error(
        409,
        "BucketAlreadyOwnedByYou",
        "Your previous request to create the named bucket succeeded and you already own it.",
        {
          BucketName: call.bucket,
        },
      );
  } else await call.store.createBucket(call.bucket);
  sendEmpty(call, 200, { Location: `/${call.bucket}` });
}

export async function headBucket(call: S3Call) {
  requireBucket(call);
  await receiveBody(call, { sink: new MemorySink(0) });
  sendEmpty(call, 200, { "x-amz-bucket-region": call.region });
}

export async function deleteBucket(call: S3Call) {
  requireBucket(call);
  await receiveBody(call, { sink: new MemorySink(0) });
  if (!(await call.store.deleteBucket(call.bucket)))
    throw new S3Error(409, "BucketNotEmpty", "The bucket you tried to delete is not empty", { BucketName: call.bucket });
  sendEmpty(call, 204);
}

export async function getBucketLocation(call: S3Call) {
  requireBucket(call);
  await receiveBody(call, { sink: new MemorySink(0) });
  // us-east-1 is the empty constraint, as S3 answers it.
  const region = call.region === "us-east-1" ? "" : call.region;
  sendXml(call, 200, `<LocationConstraint ${NS}>${region}</LocationConstraint>`);
}

function maxKeysOf(call: S3Call) {
  const text = call.query.get("max-keys");
  if (text === undefined) return 1000;
  if (!/^\d+$/.test(text) || Number(text) > 2147483647)
    throw errors.invalidArgument("Provided max-keys not an integer or within integer range", "max-keys", text);
  return Math.min(Number(text), 1000);
}

const encodeToken = (kind: "k" | "p", value: string) => Buffer.from(`${kind}:${value}`).toString("base64");

function decodeToken(token: string) {
  const text = Buffer.from(token, "base64").toString("utf8");
  if (Buffer.from(text).toString("base64") !== token || !/^[kp]:/.test(text))
    throw errors.invalidArgument("The continuation token provided is incorrect", "continuation-token", token);
  return { kind: text[0] as "k" | "p", value: text.slice(2) };
}

interface Listing {
  contents: ObjectMeta[];
  prefixes: string[];
  next?: string;
}

/** One page of keys after `after` (and past a whole common prefix when `skipPrefix`), grouped by the delimiter. */
function page(
  objects: ObjectMeta[],
  prefix: string,
  delimiter: string,
  after: string,
  skipPrefix: string | undefined,
  maxKeys: number,
): Listing {
  const listing: Listing = { contents: [], prefixes: [] };
  const afterBytes = Buffer.from(after);
  for (const object of objects) {
    if (!object.key.startsWith(prefix) || Buffer.compare(Buffer.from(object.key), afterBytes) <= 0) continue;
    if (skipPrefix !== undefined && object.key.startsWith(skipPrefix)) continue;
    const at = delimiter === "" ? -1 : object.key.indexOf(delimiter, prefix.length);
    const common = at < 0 ? undefined : object.key.slice(0, at + delimiter.length);
    if (common !== undefined && listing.prefixes.at(-1) === common) continue;
    if (listing.contents.length + listing.prefixes.length === maxKeys) {
      const last = listing.contents.at(-1)?.key ?? "";
      const lastPrefix = listing.prefixes.at(-1) ?? "";
      listing.next = Buffer.compare(Buffer.from(lastPrefix), Buffer.from(last)) > 0 ? encodeToken("p", lastPrefix) : encodeToken("k", last);
      break;
    }
    if (common !== undefined) {
      listing.prefixes.push(common);
      skipPrefix = common;
    } else listing.contents.push(object);
  }
  return listing;
}

export async function listObjectsV2(call: S3Call) {
  requireBucket(call);
  await receiveBody(call, { sink: new MemorySink(0) });
  const prefix = call.query.get("prefix") ?? "";
  const delimiter = call.query.get("delimiter") ?? "";
  const encoding = call.query.get("encoding-type");
  if (encoding !== undefined && encoding !== "url")
    throw errors.invalidArgument("Invalid Encoding Method specified in Request", "encoding-type", encoding);
  const maxKeys = maxKeysOf(call);
  const continuation = call.query.get("continuation-token");
  const startAfter = call.query.get("start-after") ?? "";
  const token = continuation === undefined ? undefined : decodeToken(continuation);
  const after = token && Buffer.compare(Buffer.from(token.value), Buffer.from(startAfter)) > 0 ? token.value : startAfter;
  const listing = page(
    call.store.sortedObjects(call.bucket),
    prefix,
    delimiter,
    after,
    token?.kind === "p" ? token.value : undefined,
    maxKeys,
  );
  const enc = (text: string) => (encoding === "url" ? encodeURIComponent(text).replace(/%2F/g, "/") : text);
  const contents = listing.contents
    .map(
      (o) =>
        `<Contents>${xmlElements({ Key: enc(o.key), LastModified: new Date(o.lastModified).toISOString(), ETag: o.etag, Size: o.size, StorageClass: "STANDARD" })}${o.checksum ? xmlElements({ ChecksumAlgorithm: o.checksum.algorithm.toUpperCase(), ChecksumType: o.checksum.type }) : ""}</Contents>`,
    )
    .join("");
  const prefixes = listing.prefixes.map((p) => `<CommonPrefixes>${xmlElements({ Prefix: enc(p) })}</CommonPrefixes>`).join("");
  const head = xmlElements({
    Name: call.bucket,
    Prefix: enc(prefix),
    Delimiter: delimiter === "" ? undefined : enc(delimiter),
    MaxKeys: maxKeys,
    KeyCount: listing.contents.length + listing.prefixes.length,
    IsTruncated: listing.next !== undefined,
    EncodingType: encoding,
    ContinuationToken: continuation,
    NextContinuationToken: listing.next,
    StartAfter: startAfter === "" ? undefined : enc(startAfter),
  });
  sendXml(call, 200, `<ListBucketResult ${NS}>${head}${contents}${prefixes}</ListBucketResult>`);
}
