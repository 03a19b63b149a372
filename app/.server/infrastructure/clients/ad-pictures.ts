import { env } from "../config/env";

/**
 * The picture of a Click-to-WhatsApp ad (issue 77): Meta's `referral.image_url` / `thumbnail_url` is
 * an address on its CDN, which the pages' Content-Security-Policy does not allow, so Jumbe fetches it
 * once into its storage (domains/ads/picture.ts). Only Meta's CDN is called, or the configured Graph
 * API base URL's origin (the Meta sandbox in development and tests, which serves a picture for its
 * made-up ads): a referral naming any other address is refused, never fetched. No redirect is
 * followed, the answer must be a picture (by its type and its first bytes) and at most `maxBytes`.
 */

/** An ad's picture larger than this is not fetched (Meta's ad thumbnails are a few dozen kilobytes). */
export const AD_PICTURE_MAX_BYTES = 1024 * 1024;
const TIMEOUT_MS = 15_000;

/** Meta's CDN hosts (scontent-*.xx.fbcdn.net and the like), over https only. */
const META_CDN = /(^|\.)(fbcdn\.net|fbsbx\.com|facebook\.com|whatsapp\.net)$/i;

/** The picture types kept, each with its first bytes. */
const PICTURE_TYPES: Record<string, (bytes: Buffer) => boolean> = {
  "image/jpeg": (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  "image/png": (b) => b.subarray(0, 8).equals(Buffer.from("89504e470d0a1a0a", "hex")),
  "image/webp": (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP",
};

/** Why a picture was not fetched: `refused` and `not_picture` never change; `unreachable` may on another try. */
export class AdPictureError extends Error {
  constructor(
    readonly kind: "refused" | "not_picture" | "too_large" | "unreachable",
    message: string,
  ) {
    super(message);
  }
  get permanent() {
    return this.kind !== "unreachable";
  }
}

/** Whether the address is one Jumbe may fetch an ad's picture from. */
export function adPictureAllowed(address: string, graphBaseUrl = env().GRAPH_API_BASE_URL) {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (url.protocol === "https:" && META_CDN.test(url.hostname)) return true;
  return url.origin === new URL(graphBaseUrl).origin;
}

/** The picture's bytes and type, or an AdPictureError saying why not. */
export async function fetchAdPicture(address: string, maxBytes = AD_PICTURE_MAX_BYTES): Promise<{ bytes: Buffer; mimeType: string }> {
  if (!adPictureAllowed(address)) throw new AdPictureError("refused", "the picture's address is not on Meta's CDN");
  let response: Response;
  try {
    response = await fetch(address, { redirect: "error", signal: AbortSignal.timeout(TIMEOUT_MS), headers: { Accept: "image/*" } });
  } catch (error) {
    throw new AdPictureError("unreachable", `the picture could not be fetched: ${(error as Error).message}`);
  }
  if (response.status >= 500 || response.status === 429) throw new AdPictureError("unreachable", `the CDN answered ${response.status}`);
  if (!response.ok) throw new AdPictureError("refused", `the CDN answered ${response.status}`);
  const mimeType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const sniff = PICTURE_TYPES[mimeType];
  if (!sniff) throw new AdPictureError("not_picture", `the answer is ${mimeType || "untyped"}, not a picture`);
  if (Number(response.headers.get("content-length") ?? 0) > maxBytes)
    throw new AdPictureError("too_large", `the picture is larger than ${maxBytes} bytes`);
  const bytes = await readAtMost(response, maxBytes);
  if (!sniff(bytes)) throw new AdPictureError("not_picture", `the bytes are not a ${mimeType}`);
  return { bytes, mimeType };
}

async function readAtMost(response: Response, maxBytes: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new AdPictureError("too_large", `the picture is larger than ${maxBytes} bytes`);
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}
