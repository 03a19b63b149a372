import { describe, expect, it } from "vitest";
import { checkWebhookUrl, isForbiddenAddress } from "./endpoint";

const refused = { ok: false, message: "The webhook URL must not point to a private, loopback or link-local address." };

describe("webhook URL address check", () => {
  // Loopback and private IPv4 written in IPv6's transition forms, and IPv6's special-purpose ranges.
  const forms = [
    "::127.0.0.1", // IPv4-compatible
    "::ffff:127.0.0.1", // IPv4-mapped
    "::ffff:0:127.0.0.1", // IPv4-translated (SIIT)
    "::ffff:10.0.0.1",
    "64:ff9b::7f00:1", // NAT64 well-known prefix
    "64:ff9b::10.0.0.1",
    "64:ff9b:1::7f00:1", // NAT64 local-use prefix
    "2002:7f00:1::1", // 6to4 of 127.0.0.1
    "2002:c0a8:1::1", // 6to4 of 192.168.0.1
    "2001:0:4136:e378:8000:63bf:3fff:fdd2", // Teredo
    "fec0::1", // site-local
    "::",
    "::1",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "ff02::1",
    "2001:db8::1",
    "100::1", // discard-only
    "2001:2::1", // benchmarking
    "2001:10::1", // ORCHID
  ];

  it.each(forms)("refuses [%s] as a URL and behind a host name", async (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
    expect(await checkWebhookUrl(`https://[${address}]/hook`)).toEqual(refused);
    expect(await checkWebhookUrl("https://hooks.example.co.ke/hook", async () => ["196.201.214.200", address])).toEqual(refused);
  });

  it.each([
    "0.0.0.0",
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "192.0.0.8",
    "192.0.2.1",
    "198.18.0.1",
    "198.51.100.7",
    "203.0.113.9",
    "224.0.0.1",
    "240.0.0.1",
    "255.255.255.255",
  ])("refuses IPv4 %s", async (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
    expect(await checkWebhookUrl(`https://${address}/hook`)).toEqual(refused);
  });

  it("refuses what is not an address at all", () => {
    expect(isForbiddenAddress("hooks.example")).toBe(true);
    expect(isForbiddenAddress("")).toBe(true);
  });

  const publicAddresses = [
    "196.201.214.200", // Safaricom
    "41.90.64.1",
    "102.68.52.1",
    "8.8.8.8",
    "1.1.1.1",
    "197.248.0.1",
    "2c0f:fe38::1",
    "2a00:1450:4001:80b::200e",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "2c0f:f7a8::1",
  ];

  it.each(publicAddresses)("accepts the public address %s", async (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
    const literal = address.includes(":") ? `[${address}]` : address;
    expect(await checkWebhookUrl(`https://${literal}/hook`)).toMatchObject({ ok: true });
    expect(await checkWebhookUrl("https://hooks.example.co.ke/hook", async () => [address])).toEqual({
      ok: true,
      url: "https://hooks.example.co.ke/hook",
    });
  });
});
