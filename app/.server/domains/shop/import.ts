import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { products } from "../../infrastructure/db/schema";
import { MultipartError, MultipartReader } from "../../infrastructure/http/multipart";
import { recordActivity } from "../activity";
import { discardProductImage } from "./images";
import { CsvError, csvRecords } from "../contacts";
import { PRODUCTS_MAX, refuseShop, type ShopActor } from "./products";
import { queueBatchSync } from "./catalog-batch";
import { ProductSchema } from "~/lib/schemas/shop";
import { PRODUCT_IMPORT_FIELD } from "~/lib/shop";
import { englishOf, words } from "../../infrastructure/words/said";
import { m } from "~/paraglide/messages";

/**
 * Products from a CSV file (the contact import's reader and its bounds, decision 138): one row a
 * product, keyed by SKU (a known SKU is updated). Rows that do not pass the product form's checks
 * are skipped and listed by line with the reason; the others are saved and queued for the catalog.
 */

export { PRODUCT_IMPORT_FIELD } from "~/lib/shop";
export const PRODUCT_IMPORT_MAX_BYTES = 512 * 1024;
export const PRODUCT_IMPORT_MAX_ROWS = 500;
/** Rows refused that the page lists (the count says how many in all). */
const ERRORS_SHOWN = 50;

/** The columns, by the names a header may give them (case aside). */
const COLUMNS: Record<string, "retailerId" | "name" | "description" | "price" | "imageUrl" | "availability"> = {
  sku: "retailerId",
  retailer_id: "retailerId",
  name: "name",
  description: "description",
  price: "price",
  price_kes: "price",
  image_url: "imageUrl",
  image: "imageUrl",
  availability: "availability",
};

export interface ImportOutcome {
  created: number;
  updated: number;
  refused: number;
  errors: { line: number; message: string }[];
}

async function fileBytes(upload: { body: ReadableStream<Uint8Array> | null; boundary: string | undefined }) {
  if (!upload.boundary) throw refuseShop(400, m.shop_import_choose_file());
  const reader = new MultipartReader(upload.body, upload.boundary, { maxBytes: PRODUCT_IMPORT_MAX_BYTES + 16 * 1024, maxParts: 4 });
  let bytes: Buffer | undefined;
  try {
    for (let part = await reader.next(); part; part = await reader.next()) {
      if (part.name !== PRODUCT_IMPORT_FIELD || !part.fileName) continue;
      const chunks: Buffer[] = [];
      for await (const chunk of reader.chunks()) chunks.push(Buffer.from(chunk));
      bytes = Buffer.concat(chunks);
    }
  } catch (error) {
    if (error instanceof MultipartError)
      throw error.tooLarge
        ? refuseShop(413, m.shop_import_too_large({ max: PRODUCT_IMPORT_MAX_BYTES / 1024 }))
        : refuseShop(400, error.message);
    throw error;
  }
  if (!bytes?.length) throw refuseShop(400, m.shop_import_choose_file());
  if (bytes.length > PRODUCT_IMPORT_MAX_BYTES) throw refuseShop(413, m.shop_import_too_large({ max: PRODUCT_IMPORT_MAX_BYTES / 1024 }));
  return bytes;
}

/** The file's rows as product inputs (by the header's names), with their line numbers. */
async function rowsOf(bytes: Buffer) {
  const rows: { line: number; values: Record<string, string> }[] = [];
  let columns: (string | undefined)[] | undefined;
  try {
    for await (const record of csvRecords(
      (async function* () {
        yield new Uint8Array(bytes);
      })(),
    )) {
      if (!columns) {
        columns = record.fields.map((f) => COLUMNS[f.trim().toLowerCase().replace(/\s+/g, "_")]);
        if (!columns.includes("retailerId") || !columns.includes("name") || !columns.includes("price"))
          throw refuseShop(422, m.shop_import_header());
        continue;
      }
      if (record.fields.every((f) => !f.trim())) continue;
      if (rows.length >= PRODUCT_IMPORT_MAX_ROWS) throw refuseShop(413, m.shop_import_too_many({ max: PRODUCT_IMPORT_MAX_ROWS }));
      const values: Record<string, string> = { availability: "in stock" };
      record.fields.forEach((field, i) => {
        const key = columns![i];
        if (key && field.trim()) values[key] = key === "availability" ? field.trim().toLowerCase() : field;
      });
      rows.push({ line: record.line, values });
    }
  } catch (error) {
    if (error instanceof CsvError) throw refuseShop(422, error.message);
    throw error;
  }
  if (!rows.length) throw refuseShop(422, m.shop_import_no_rows());
  return rows;
}

/** Reads the uploaded file and saves its good rows; a file that cannot be read changes nothing. */
export async function importProducts(
  actor: ShopActor,
  upload: { body: ReadableStream<Uint8Array> | null; boundary: string | undefined },
): Promise<ImportOutcome> {
  const rows = await rowsOf(await fileBytes(upload));
  const outcome: ImportOutcome = { created: 0, updated: 0, refused: 0, errors: [] };
  const good = rows.flatMap(({ line, values }) => {
    const parsed = ProductSchema.safeParse(values);
    if (parsed.success) return [parsed.data];
    outcome.refused++;
    if (outcome.errors.length < ERRORS_SHOWN) outcome.errors.push({ line, message: parsed.error.issues.map((i) => i.message).join(" ") });
    return [];
  });
  const replaced = await storedImagesOf(
    actor.organizationId,
    good.map((p) => p.retailerId),
  );
  await db().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`shop-products:${actor.organizationId}`}))`);
    for (const p of good) {
      const [row] = await tx
        .insert(products)
        .values({
          organizationId: actor.organizationId,
          retailerId: p.retailerId,
          name: p.name,
          description: p.description,
          priceCents: p.price,
          imageUrl: p.imageUrl,
          availability: p.availability,
        })
        .onConflictDoUpdate({
          target: [products.organizationId, products.retailerId],
          set: {
            name: p.name,
            description: p.description,
            priceCents: p.price,
            imageUrl: p.imageUrl,
            // The file's address replaces an uploaded image (its file is deleted after the import).
            imageKey: null,
            imageToken: null,
            imageType: null,
            availability: p.availability,
            removedAt: null,
            syncState: "pending",
            syncError: null,
            updatedAt: new Date(),
          },
        })
        .returning({ id: products.id, inserted: sql<boolean>`(xmax = 0)` });
      if (row!.inserted) outcome.created++;
      else outcome.updated++;
    }
    // The whole file in one items_batch, not one Graph call per product (decision 141).
    if (good.length) await queueBatchSync(tx, actor.organizationId);
    const [counted] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(products)
      .where(and(eq(products.organizationId, actor.organizationId), sql`${products.removedAt} is null`));
    if ((counted?.count ?? 0) > PRODUCTS_MAX) throw refuseShop(409, m.shop_product_limit({ max: PRODUCTS_MAX }));
  });
  for (const key of replaced) await discardProductImage(key);
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: outcome.refused ? "warning" : "success",
    action: "Products imported",
    details: englishOf(
      words("app_activity_detail_products_imported", { created: outcome.created, updated: outcome.updated, refused: outcome.refused }),
    ),
    meta: actor.meta,
  });
  return outcome;
}

/** The stored images of the products an import changes (their rows take the file's address instead). */
async function storedImagesOf(organizationId: string, retailerIds: string[]): Promise<string[]> {
  if (!retailerIds.length) return [];
  const rows = await db()
    .select({ key: products.imageKey })
    .from(products)
    .where(and(eq(products.organizationId, organizationId), inArray(products.retailerId, retailerIds), isNotNull(products.imageKey)));
  return rows.flatMap((r) => (r.key ? [r.key] : []));
}
