import { Readable } from "node:stream";
import type { Route } from "./+types/catalog-image";
import { publicProductImage, readProductImage } from "~/.server/domains/shop";
import { fileNotFound } from "~/.server/infrastructure/http/file-response";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";

/**
 * GET /catalog-images/<token>.<jpg|png>: a product's uploaded image, without signing in, because
 * Meta's catalog fetches `image_url` as anyone (decision 141). The name is a 256-bit random token,
 * new for each upload; an unknown name, a removed product's and a malformed one all answer 404.
 * Never run as a page (nosniff, CSP sandbox); cached briefly, since a new image gets a new name.
 */
export async function loader({ params, request }: Route.LoaderArgs) {
  const image = await publicProductImage(params.file);
  if (!image) return fileNotFound();
  const stream = request.method === "HEAD" ? null : await readProductImage(image.key);
  if (request.method !== "HEAD" && !stream) return fileNotFound();
  return new Response(stream ? (Readable.toWeb(stream) as ReadableStream<Uint8Array>) : null, {
    headers: {
      "Content-Type": image.type,
      "Cache-Control": "public, max-age=300",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "sandbox",
      "Content-Disposition": "inline",
    },
  });
}

export function action() {
  return methodNotAllowed("GET");
}
