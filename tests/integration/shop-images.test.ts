import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, env, setEnv } from "~/.server/infrastructure/config/env";
import { decryptSecret } from "~/.server/infrastructure/security/crypto";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { action as productAction, loader as productLoader } from "~/routes/app/shop/product";
import { action as productsAction } from "~/routes/app/shop/products";
import { loader as imageLoader } from "~/routes/catalog-image";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { APP, callRoute, getRequest, routeArgs } from "../support/http";
import { startGraphSandbox } from "../support/sandbox-waba";

// A product's picture uploaded to Jumbe (decision 141): checked by its bytes and size, kept in the
// file storage, served without a session at an unguessable address Meta's catalog is given, and
// gone (404) once the product is removed or its picture replaced.

let graph: Awaited<ReturnType<typeof startGraphSandbox>>;

beforeAll(async () => {
  registerJobHandlers();
  graph = await startGraphSandbox({});
});

afterAll(async () => {
  await graph.close();
});

beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: APP, GRAPH_API_BASE_URL: graph.graphBase, GRAPH_API_TIMEOUT_MS: "3000" }));
  graph.sandbox.reset();
});

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  const connected = await graph.connect(user.organization.id, name);
  const cookie = await signedInCookie(user.email, user.password);
  return { ...user, ...connected, organizationId: user.organization.id, cookie };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from("JFIF kikoi picture bytes")]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("png bytes")]);

const FIELDS = { name: "Kikoi ya pwani", description: "Cotton", price: "1,500", retailerId: "KIKOI-1", availability: "in stock" };

/** The product form posted as the browser posts it (multipart), with a file in `image`. */
function post(t: Tenant, path: string, fields: Record<string, string>, file?: { bytes: Buffer; name: string; type: string }) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  form.set(
    "image",
    file ? new File([new Uint8Array(file.bytes)], file.name, { type: file.type }) : new File([], "", { type: "application/octet-stream" }),
  );
  const request = new Request(`${APP}${path}`, { method: "POST", body: form, headers: { cookie: t.cookie, origin: APP } });
  const id = path.split("/").pop()!;
  return callRoute(productAction, request, id === "new" ? {} : { id });
}

const rowsOf = (organizationId: string) =>
  rawQuery<{ id: string; image_url: string | null; image_key: string | null; image_token: string | null; image_type: string | null }>(
    `select id, image_url, image_key, image_token, image_type from products where organization_id = $1 order by retailer_id`,
    [organizationId],
  );

/** GET /catalog-images/<name> with no cookie at all, as Meta fetches it. */
async function fetchImage(url: string) {
  const file = url.split("/catalog-images/")[1]!;
  const answer = (await imageLoader(routeArgs(new Request(url), { file }))) as Response;
  return { status: answer.status, type: answer.headers.get("content-type"), bytes: Buffer.from(await answer.arrayBuffer()) };
}

async function catalogImage(t: Tenant) {
  const [row] = await rawQuery<{ catalog_id: string; token: string }>(
    `select s.catalog_id, a.access_token_encrypted as token from shop_catalogs s join whatsapp_accounts a on a.id = s.account_id where s.organization_id = $1`,
    [t.organizationId],
  );
  const answer = await fetch(`${graph.graphBase}/${env().GRAPH_API_VERSION}/${row!.catalog_id}/products`, {
    headers: { Authorization: `Bearer ${decryptSecret(row!.token)}` },
  });
  return ((await answer.json()) as { data: { image_url: string }[] }).data.map((p) => p.image_url);
}

describe("a product's uploaded picture", () => {
  it("is stored, given to Meta at a public address that needs no session, and 404s once the product is removed", async () => {
    const t = await tenant("Duka la Picha");
    const saved = await post(t, "/shop/products/new", FIELDS, { bytes: JPEG, name: "kikoi.png", type: "image/png" });
    expect(saved.status).toBe(302);
    const [row] = await rowsOf(t.organizationId);
    // Known by its bytes: a JPEG named .png with the browser saying PNG is a JPEG.
    expect(row).toMatchObject({ image_url: null, image_type: "image/jpeg" });
    expect(row!.image_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await drainJobs();
    const [address] = await catalogImage(t);
    expect(address).toBe(`${APP}/catalog-images/${row!.image_token}.jpg`);
    const served = await fetchImage(address!);
    expect(served).toMatchObject({ status: 200, type: "image/jpeg" });
    expect(served.bytes.equals(JPEG)).toBe(true);
    // A guessed or altered name is not served.
    expect((await fetchImage(`${APP}/catalog-images/${"A".repeat(43)}.jpg`)).status).toBe(404);
    expect((await fetchImage(address!.replace(/\.jpg$/, ".png"))).status).toBe(404);
    expect((await fetchImage(`${APP}/catalog-images/..%2F..%2Fetc.jpg`)).status).toBe(404);

    // The edit page shows it; saved again without a file or address, the picture is kept.
    const page = await callRoute(productLoader, getRequest(`/shop/products/${row!.id}`, { cookie: t.cookie }), { id: row!.id });
    expect(page.data).toMatchObject({ product: { storedImage: address } });
    expect((await post(t, `/shop/products/${row!.id}`, { ...FIELDS, name: "Kikoi kubwa" })).status).toBe(302);
    expect((await rowsOf(t.organizationId))[0]!.image_token).toBe(row!.image_token);

    // A new picture gets a new address; the old one is gone.
    expect((await post(t, `/shop/products/${row!.id}`, FIELDS, { bytes: PNG, name: "k.png", type: "image/png" })).status).toBe(302);
    const [replaced] = await rowsOf(t.organizationId);
    expect(replaced).toMatchObject({ image_type: "image/png" });
    expect(replaced!.image_token).not.toBe(row!.image_token);
    expect((await fetchImage(address!)).status).toBe(404);
    const second = `${APP}/catalog-images/${replaced!.image_token}.png`;
    expect((await fetchImage(second)).status).toBe(200);

    const removed = await callRoute(
      productsAction,
      new Request(`${APP}/shop/products`, {
        method: "POST",
        body: new URLSearchParams({ intent: "remove", id: row!.id, confirm: "yes" }),
        headers: { cookie: t.cookie, origin: APP, "content-type": "application/x-www-form-urlencoded" },
      }),
    );
    expect(removed.status).toBeLessThan(400);
    expect((await fetchImage(second)).status).toBe(404);
  });

  it("refuses a file that is not a JPEG or PNG, one over 5 MB, and a product with no picture at all", async () => {
    const t = await tenant("Duka la Makosa");
    const notImage = await post(t, "/shop/products/new", FIELDS, {
      bytes: Buffer.from("GIF89a not allowed"),
      name: "k.jpg",
      type: "image/jpeg",
    });
    expect(notImage.status).toBe(415);
    expect(JSON.stringify(notImage.data)).toContain("JPEG or PNG");
    const big = Buffer.concat([JPEG, Buffer.alloc(5 * 1024 * 1024)]);
    const tooLarge = await post(t, "/shop/products/new", FIELDS, { bytes: big, name: "big.jpg", type: "image/jpeg" });
    expect(tooLarge.status).toBe(413);
    const none = await post(t, "/shop/products/new", FIELDS);
    expect(none.status).toBe(400);
    expect(JSON.stringify(none.data)).toContain("Upload a picture");
    expect(await rowsOf(t.organizationId)).toEqual([]);
    // An address still does.
    expect((await post(t, "/shop/products/new", { ...FIELDS, imageUrl: "https://duka.example.co.ke/k.jpg" })).status).toBe(302);
    // A product that had an address takes an upload in its place.
    const [withAddress] = await rowsOf(t.organizationId);
    expect(withAddress).toMatchObject({ image_url: "https://duka.example.co.ke/k.jpg", image_key: null });
    expect((await post(t, `/shop/products/${withAddress!.id}`, FIELDS, { bytes: PNG, name: "k.png", type: "image/png" })).status).toBe(302);
    expect((await rowsOf(t.organizationId))[0]).toMatchObject({ image_url: null, image_type: "image/png" });
  });

  it("keeps another organisation's product pages out of reach: its edit page is 404", async () => {
    const a = await tenant("Duka A");
    const b = await tenant("Duka B");
    await post(a, "/shop/products/new", FIELDS, { bytes: JPEG, name: "k.jpg", type: "image/jpeg" });
    const [row] = await rowsOf(a.organizationId);
    const foreign = await post(b, `/shop/products/${row!.id}`, FIELDS, { bytes: PNG, name: "k.png", type: "image/png" });
    expect(foreign.status).toBe(404);
    expect((await rowsOf(a.organizationId))[0]!.image_type).toBe("image/jpeg");
  });
});
