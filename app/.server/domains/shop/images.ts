import { randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import { env } from "../../infrastructure/config/env";
import { db } from "../../infrastructure/db/client";
import { products } from "../../infrastructure/db/schema";
import { fileStorage, StorageLimitError, StorageNotFoundError } from "../../infrastructure/storage";
import { log } from "../../infrastructure/log";
import { Refusal } from "../../infrastructure/refusal";
import { PRODUCT_IMAGE_MAX_BYTES } from "~/lib/schemas/shop";
import { m } from "~/paraglide/messages";

/**
 * A product's image kept by Jumbe (decision 141): a JPEG or PNG uploaded with the product's form,
 * known by its first bytes (never its name or the browser's type), kept in the file storage and
 * served without signing in at an unguessable address under APP_URL, because Meta's catalog
 * fetches `image_url` as anyone. Nothing else Jumbe stores is public. The file goes with the
 * product (removed, or its image replaced).
 */

export interface StoredImage {
  key: string;
  token: string;
  type: "image/jpeg" | "image/png";
}

// The shop's refusals (as products.ts makes them), without importing it: products.ts uses this module.
const refuseImage = (status: 413 | 415, message: string) => new Refusal({ domain: "shop", status, message, field: "image" });
type Product = typeof products.$inferSelect;

const extensionOf = (type: string) => (type === "image/png" ? "png" : "jpg");
/** The public file name: 43 characters of a random 256-bit token, then the type's extension. */
const PUBLIC_NAME = /^([A-Za-z0-9_-]{43})\.(jpg|png)$/;

/** The image's type from its first bytes, or null when it is neither JPEG nor PNG. */
export function imageTypeOf(head: Uint8Array): StoredImage["type"] | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (head.length >= 8 && png.every((byte, i) => head[i] === byte)) return "image/png";
  return null;
}

/** Checks and stores an uploaded image; a refusal at the form's `image` field when it is too large or not a picture. */
export async function storeProductImage(organizationId: string, file: File): Promise<StoredImage> {
  if (file.size > PRODUCT_IMAGE_MAX_BYTES) throw tooLarge();
  const bytes = new Uint8Array(await file.arrayBuffer());
  const type = imageTypeOf(bytes.subarray(0, 8));
  if (!type) throw refuseImage(415, m.shop_product_image_file_type());
  try {
    const stored = await fileStorage().write([bytes], {
      maxBytes: PRODUCT_IMAGE_MAX_BYTES,
      organisationId: organizationId,
      contentType: type,
    });
    return { key: stored.key, token: randomBytes(32).toString("base64url"), type };
  } catch (error) {
    if (error instanceof StorageLimitError) throw tooLarge();
    throw error;
  }
}

const tooLarge = () => refuseImage(413, m.shop_product_image_too_large({ max: PRODUCT_IMAGE_MAX_BYTES / 1024 / 1024 }));

/** Deletes a stored image's file (after its product let go of it); a failure is logged, never thrown. */
export async function discardProductImage(key: string | null | undefined) {
  if (!key) return;
  await fileStorage()
    .delete(key)
    .catch((error: unknown) => log().warn({ err: error }, "shop image not deleted"));
}

/** The address Meta fetches a product's image at: its stored image's public address, else the one the team gave. */
export function productImageUrl(product: Pick<Product, "imageUrl" | "imageToken" | "imageType">): string | null {
  if (product.imageToken && product.imageType)
    return `${env().APP_URL}/catalog-images/${product.imageToken}.${extensionOf(product.imageType)}`;
  return product.imageUrl;
}

/** The stored image behind a public file name, or null (unknown, malformed, or its product removed). */
export async function publicProductImage(fileName: string): Promise<{ key: string; type: string } | null> {
  const match = PUBLIC_NAME.exec(fileName);
  if (!match) return null;
  const [row] = await db()
    .select({ key: products.imageKey, type: products.imageType })
    .from(products)
    .where(and(eq(products.imageToken, match[1]!), isNull(products.removedAt)));
  if (!row?.key || !row.type || extensionOf(row.type) !== match[2]) return null;
  return { key: row.key, type: row.type };
}

/** The image's bytes as a stream, or null when the file is gone. */
export async function readProductImage(key: string) {
  try {
    return await fileStorage().read(key);
  } catch (error) {
    if (error instanceof StorageNotFoundError) return null;
    throw error;
  }
}
