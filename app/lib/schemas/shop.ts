// The shop's forms (decision 138): a product as the team types it. The server checks every field;
// the words are read in the request's language when a check fails.
import * as z from "zod/mini";
import { m } from "~/paraglide/messages";

export const PRODUCT_NAME_MAX = 150;
export const PRODUCT_DESCRIPTION_MAX = 1000;
/** KES 10,000,000.00: above it, a typing slip rather than a price. */
export const PRODUCT_PRICE_MAX_CENTS = 1_000_000_000;
/** Letters, digits, dot, dash and underscore: the SKU Meta keys the product by (retailer_id). */
export const PRODUCT_SKU = /^[A-Za-z0-9._-]{1,100}$/;
export const PRODUCT_AVAILABILITY = ["in stock", "out of stock"] as const;
/** An uploaded product image: WhatsApp's own limit for an image (decision 141). */
export const PRODUCT_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
const HTTPS_ADDRESS = /^https:\/\/[^\s/?#]+\.[^\s/?#]+(\/\S*)?$/i;

/** "1,500", "1500.5", "KES 1 500.50" → cents; null when it is not an amount with at most two decimals. */
export function priceToCents(text: string): number | null {
  const plain = text
    .trim()
    .replace(/^(KES|KSH|Ksh|ksh|kes)\.?\s*/, "")
    .replace(/[,\s]/g, "");
  if (!/^\d{1,8}(\.\d{1,2})?$/.test(plain)) return null;
  const [shillings, cents = ""] = plain.split(".");
  return Number(shillings) * 100 + Number(cents.padEnd(2, "0"));
}

/** Cents as the price field shows them: "1500.50". */
export const centsToPrice = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;

const text = (max: number, required: () => string, tooLong: () => string) =>
  z.string({ error: required }).check(z.trim(), z.minLength(1, { error: required, abort: true }), z.maxLength(max, { error: tooLong }));

export const ProductSchema = z.object({
  name: text(
    PRODUCT_NAME_MAX,
    () => m.shop_product_name_required(),
    () => m.shop_product_name_too_long({ max: PRODUCT_NAME_MAX }),
  ),
  description: z
    .pipe(
      z.optional(z.string()),
      z.transform((value) => (value ?? "").trim()),
    )
    .check(z.maxLength(PRODUCT_DESCRIPTION_MAX, { error: () => m.shop_product_description_too_long({ max: PRODUCT_DESCRIPTION_MAX }) })),
  price: z.pipe(
    z.string({ error: () => m.shop_product_price_required() }),
    z.transform((value, ctx) => {
      const cents = priceToCents(value);
      if (cents === null || cents <= 0 || cents > PRODUCT_PRICE_MAX_CENTS) {
        ctx.issues.push({ code: "custom", input: value, message: m.shop_product_price_invalid() });
        return z.NEVER;
      }
      return cents;
    }),
  ),
  retailerId: z
    .string({ error: () => m.shop_product_sku_required() })
    .check(
      z.trim(),
      z.minLength(1, { error: () => m.shop_product_sku_required(), abort: true }),
      z.regex(PRODUCT_SKU, { error: () => m.shop_product_sku_format() }),
    ),
  imageUrl: z.string({ error: () => m.shop_product_image_required() }).check(
    z.trim(),
    z.minLength(1, { error: () => m.shop_product_image_required(), abort: true }),
    z.maxLength(2000, { error: () => m.shop_product_image_invalid(), abort: true }),
    z.refine((value) => HTTPS_ADDRESS.test(value), { error: () => m.shop_product_image_invalid() }),
  ),
  availability: z.enum(PRODUCT_AVAILABILITY, { error: () => m.shop_product_availability_invalid() }),
});
export type ProductInput = z.output<typeof ProductSchema>;

/**
 * The product's page: the image is an upload (`image`, checked by its bytes on the server) or an
 * https address; on a saved product with a stored image, neither keeps that image. The server says
 * when a product has no image at all.
 */
export const ProductFormSchema = z.extend(ProductSchema, {
  imageUrl: z
    .pipe(
      z.optional(z.string()),
      z.transform((value) => (value ?? "").trim()),
    )
    .check(
      z.maxLength(2000, { error: () => m.shop_product_image_invalid(), abort: true }),
      z.refine((value) => value === "" || HTTPS_ADDRESS.test(value), { error: () => m.shop_product_image_invalid() }),
    ),
  image: z.optional(z.file()),
});
export type ProductFormInput = z.output<typeof ProductFormSchema>;
