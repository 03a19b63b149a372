import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isShopDomain, kenyanPhone, shopifyCustomerPhone, verifyShopifyInstallHmac, verifyShopifyWebhook } from "./shopify-checks";

const SECRET = "shpss_unit_test_secret";

function signedQuery(params: Record<string, string>) {
  const message = new URLSearchParams(Object.entries(params).sort(([a], [b]) => a.localeCompare(b))).toString();
  return new URLSearchParams({ ...params, hmac: createHmac("sha256", SECRET).update(message).digest("hex") });
}

describe("verifyShopifyInstallHmac", () => {
  const params = {
    code: "0907a61c0c8d55e99db179b68161bc00",
    shop: "duka-bora.myshopify.com",
    state: "n1",
    timestamp: "1764250000",
    host: "YWRtaW4uc2hvcGlmeS5jb20vc3RvcmUvZHVrYS1ib3Jh",
  };

  it("accepts the hex HMAC of the sorted other parameters, in any order given", () => {
    const query = signedQuery(params);
    expect(verifyShopifyInstallHmac(query, SECRET)).toBe(true);
    expect(verifyShopifyInstallHmac(Object.fromEntries([...query.entries()].reverse()), SECRET)).toBe(true);
  });

  it("refuses a changed parameter, another secret, or a missing or malformed hmac", () => {
    const query = signedQuery(params);
    const changed = new URLSearchParams(query);
    changed.set("shop", "evil.myshopify.com");
    expect(verifyShopifyInstallHmac(changed, SECRET)).toBe(false);
    expect(verifyShopifyInstallHmac(query, "another-secret")).toBe(false);
    const missing = new URLSearchParams(query);
    missing.delete("hmac");
    expect(verifyShopifyInstallHmac(missing, SECRET)).toBe(false);
    const short = new URLSearchParams(query);
    short.set("hmac", "abc");
    expect(verifyShopifyInstallHmac(short, SECRET)).toBe(false);
  });
});

describe("verifyShopifyWebhook", () => {
  const body = JSON.stringify({ id: 1, phone: "0712 345 678" });
  const header = createHmac("sha256", SECRET).update(body).digest("base64");

  it("accepts the base64 HMAC of the raw body", () => {
    expect(verifyShopifyWebhook(body, header, SECRET)).toBe(true);
    expect(verifyShopifyWebhook(Buffer.from(body), header, SECRET)).toBe(true);
  });

  it("refuses other bytes, another secret, hex, or nothing", () => {
    expect(verifyShopifyWebhook(body.replace("1", "2"), header, SECRET)).toBe(false);
    expect(verifyShopifyWebhook(body, header, "other")).toBe(false);
    expect(verifyShopifyWebhook(body, createHmac("sha256", SECRET).update(body).digest("hex"), SECRET)).toBe(false);
    expect(verifyShopifyWebhook(body, undefined, SECRET)).toBe(false);
  });
});

describe("Kenyan phones from Shopify", () => {
  it("reads the ways Kenyans write a mobile number", () => {
    for (const written of ["0712 345 678", "+254712345678", "254712345678", "+254 712 345 678", "0712-345-678"])
      expect(kenyanPhone(written), written).toBe("+254712345678");
    expect(kenyanPhone("0110 123 456")).toBe("+254110123456");
  });

  it("answers null for anything else", () => {
    for (const other of ["", "12345", "+255712345678", "020 222 2222", "not a phone", "+1 415 555 0100"])
      expect(kenyanPhone(other), other).toBeNull();
    expect(kenyanPhone(null)).toBeNull();
  });

  it("takes the order's phone, then the customer's, the shipping and the billing address's", () => {
    expect(shopifyCustomerPhone({ phone: "0712 345 678", customer: { phone: "+254722000111" } })).toBe("+254712345678");
    expect(shopifyCustomerPhone({ phone: null, customer: { phone: "254722000111" } })).toBe("+254722000111");
    expect(shopifyCustomerPhone({ phone: "n/a", customer: null, shipping_address: { phone: "0733 123 456" } })).toBe("+254733123456");
    expect(shopifyCustomerPhone({ destination: { phone: "0744000000" } })).toBe("+254744000000");
    expect(shopifyCustomerPhone({ billing_address: { phone: "+254 711 000 222" } })).toBe("+254711000222");
    expect(shopifyCustomerPhone({ phone: "+1 415 555 0100" })).toBeNull();
    expect(shopifyCustomerPhone("nope")).toBeNull();
  });

  it("knows a shop's domain", () => {
    expect(isShopDomain("duka-bora.myshopify.com")).toBe(true);
    for (const other of ["duka-bora.myshopify.com.evil.test", "127.0.0.1", "DUKA.myshopify.com", "x.myshopify.com/admin"])
      expect(isShopDomain(other), other).toBe(false);
  });
});
