import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { env, setEnv } from "~/.server/infrastructure/config/env";
import { decryptSecret } from "~/.server/infrastructure/security/crypto";
import { listShortcodes, testShortcode } from "~/.server/domains/payments";
import { createMpesaSandbox, type MpesaSandbox } from "@jumbe/sandbox/mpesa/index";
import { DEMO_TILLS, demoTillShortcodes } from "@jumbe/sandbox/mpesa/demo-tills";
import { keepIdleConnections } from "@jumbe/sandbox/test-server";
import { META } from "../support/accounts";
import { demoData } from "../support/demo-snapshot";

// Issue 76: two demo tenants really have their own tills, known to the M-Pesa sandbox as sandbox
// mode starts it (server.ts), so "Test connection" on each says working.

let sandbox: MpesaSandbox;
let close: () => Promise<void>;
let origin = "";

beforeAll(async () => {
  const config = env();
  sandbox = createMpesaSandbox({
    consumerKey: config.MPESA_CONSUMER_KEY,
    consumerSecret: config.MPESA_CONSUMER_SECRET,
    shortcode: config.MPESA_SHORTCODE,
    passkey: config.MPESA_PASSKEY,
    shortcodes: demoTillShortcodes(),
    callbackDelayMs: 0,
  });
  const app = express().use("/sandbox/mpesa", sandbox.router);
  const server = keepIdleConnections(app.listen(0, "127.0.0.1"));
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = async () => {
    await sandbox.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
});
// Each test starts from an emptied database (setup.ts): the demo again, from the file's copy after the first.
beforeEach(async () => {
  await demoData();
  setEnv({
    ...env(),
    MPESA_CALLBACK_BASE_URL: "http://127.0.0.1:9",
    mpesaShortcodeBaseUrls: { ...env().mpesaShortcodeBaseUrls, sandbox: `${origin}/sandbox/mpesa` },
  });
}, 300_000);
afterAll(() => close?.());

describe("the demo's own tills", () => {
  it.each(DEMO_TILLS.map((till) => [till.organization, till] as const))(
    "%s has its till, the default, and it tests as working",
    async (_name, till) => {
      const [owner] = await rawQuery<{ id: string; organization_id: string }>(
        `select u.id, u.organization_id from users u join organizations o on o.id = u.organization_id
        where o.name = $1 order by u.created_at limit 1`,
        [till.organization],
      );
      expect(owner, till.organization).toBeDefined();
      const shortcodes = await listShortcodes(owner!.organization_id);
      expect(shortcodes).toMatchObject([
        { label: till.label, kind: "till", tillNumber: till.tillNumber, isDefault: true, status: "working" },
      ]);
      const [sealed] = await rawQuery<{ consumer_secret_sealed: string; passkey_sealed: string }>(
        `select consumer_secret_sealed, passkey_sealed from mpesa_shortcodes where organization_id = $1`,
        [owner!.organization_id],
      );
      // Sealed as a real one is, and the very credentials the sandbox knows.
      expect(sealed!.passkey_sealed).not.toContain(till.passkey);
      expect(decryptSecret(sealed!.passkey_sealed)).toBe(till.passkey);
      expect(decryptSecret(sealed!.consumer_secret_sealed)).toBe(till.consumerSecret);
      const actor = { user: { id: owner!.id }, organization: { id: owner!.organization_id }, role: "owner" as const };
      const result = await testShortcode(actor, shortcodes[0]!.id, META);
      expect(result).toEqual({ label: till.label, working: true, reason: null });
      expect(sandbox.allPrompts()[0]).toMatchObject({ businessShortCode: till.shortcode, shortcode: till.tillNumber });
    },
  );
});
