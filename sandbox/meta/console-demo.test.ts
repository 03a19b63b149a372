import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CONSOLE_DEMO_ACCOUNTS, CONSOLE_DEMO_WABAS, consoleDemoIds, consoleDemoToken } from "./console-demo";
import { APP_ID, startHarness, type Harness } from "./test-support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const account = (key: string) => CONSOLE_DEMO_ACCOUNTS.find((a) => a.key === key)!;

describe("the admin console's demo accounts (consoleDemo)", () => {
  it("accepts each healthy account's derived token for its own WABA, and refuses the refused one's with 190", async () => {
    h = await startHarness({ consoleDemo: true });
    for (const demo of CONSOLE_DEMO_WABAS) {
      const { wabaId, phoneNumberIds } = consoleDemoIds(APP_ID, demo);
      const answer = await h.graph(`${wabaId}?fields=id,name`, { token: consoleDemoToken(APP_ID, demo) });
      if (demo.state === "refused") {
        expect(answer.status, demo.key).toBe(401);
        expect(answer.json.error.code).toBe(190);
        continue;
      }
      expect(answer.status, demo.key).toBe(200);
      expect(answer.json).toMatchObject({ id: wabaId, name: demo.business });
      // Its numbers, with the quality and tier the demo seed shows.
      const numbers = await h.graph(`${wabaId}/phone_numbers`, { token: consoleDemoToken(APP_ID, demo) });
      expect(numbers.status).toBe(200);
      expect(numbers.json.data.map((n) => [n.id, n.display_phone_number, n.verified_name, n.quality_rating]).sort()).toEqual(
        demo.numbers.map((n, i) => [phoneNumberIds[i], n.display, n.name, n.quality]).sort(),
      );
    }
    // A token opens only its own WABA.
    const mamaMboga = consoleDemoToken(APP_ID, account("mama-mboga"));
    const other = await h.graph(consoleDemoIds(APP_ID, account("umoja-mfb")).wabaId, { token: mamaMboga });
    expect(other.status).not.toBe(200);
    // Another app id derives other ids and tokens.
    expect(consoleDemoToken("111111111111111", account("mama-mboga"))).not.toBe(mamaMboga);
    expect(consoleDemoIds("111111111111111", account("mama-mboga")).wabaId).not.toBe(consoleDemoIds(APP_ID, account("mama-mboga")).wabaId);
  });

  it("lists them in the state, not in the signup dialog, keeps them through a reset and adds them to an older state file", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "meta-sandbox-console-"));
    const statePath = path.join(dir, "meta.json");
    try {
      // A state file written without them gains them on the next start.
      h = await startHarness({ statePath });
      expect((await h.state()).businesses).toHaveLength(1);
      await h.close();
      h = await startHarness({ statePath, consoleDemo: true });
      const state = await h.state();
      expect(state.businesses).toHaveLength(1 + CONSOLE_DEMO_WABAS.length);
      const { wabaId } = consoleDemoIds(APP_ID, account("kilimo-bora"));
      expect(state.phoneNumbers.find((p) => p.wabaId === wabaId)).toMatchObject({
        qualityRating: "YELLOW",
        messagingLimit: "TIER_250",
        status: "CONNECTED",
      });
      expect(state.subscriptions.map((s) => s.wabaId)).toContain(wabaId);

      const dialog = await (await fetch(`${h.base}/dialog/oauth?client_id=${APP_ID}&redirect_uri=http://127.0.0.1/cb&state=s`)).text();
      expect(dialog).toContain("+254 711 000 001");
      expect(dialog).not.toContain("Mama Mboga");

      h.sandbox.reset();
      expect((await h.state()).businesses).toHaveLength(1 + CONSOLE_DEMO_WABAS.length);
      const token = consoleDemoToken(APP_ID, account("umoja-mfb"));
      expect((await h.graph(consoleDemoIds(APP_ID, account("umoja-mfb")).wabaId, { token })).status).toBe(200);
    } finally {
      await h?.close();
      h = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
