import { createHmac } from "node:crypto";
import { test, expect } from "./fixtures";
import { ADMIN } from "./helpers";
import { ownServer } from "./own-server";

// A process killed (SIGKILL) right after acknowledging webhooks loses none of them: a second process
// on the same database processes them all. A server of its own (free port, temporary data
// directory), so the shared one is untouched.

const SECRET = "jumbe-sandbox-meta-app-secret";

/** The demo administrator's session cookie, signed in through the JSON API. */
async function adminCookie(base: string) {
  const signin = await fetch(`${base}/api/auth/signin`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: base },
    body: JSON.stringify(ADMIN),
  });
  expect(signin.status).toBe(200);
  return signin.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

test("webhooks acknowledged before a crash are all processed after the restart", async ({ javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "no browser involved: run once");
  test.setTimeout(240_000); // two server starts, each up to own-server.ts's deadline
  const server = await ownServer("crash");
  const BASE = server.base;
  try {
    await server.start({ JOB_WORKERS: "0" }); // no workers: nothing is processed before the crash
    // The demo data has webhook deliveries of its own (the admin console's WhatsApp accounts).
    const before = await (await fetch(`${BASE}/api/admin/queue`, { headers: { cookie: await adminCookie(BASE) } })).json();
    const seeded = Number(before.webhooks.received);
    const bodies = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({
        object: "whatsapp_business_account",
        entry: [
          {
            id: "1000000000000001",
            changes: [
              {
                field: "messages",
                value: {
                  messaging_product: "whatsapp",
                  metadata: { display_phone_number: "254700000001", phone_number_id: "1000000000000002" },
                  statuses: [{ id: `wamid.CRASH${i}`, status: "delivered", timestamp: "1750030073", recipient_id: "254712345678" }],
                },
              },
            ],
          },
        ],
      }),
    );
    const answers = await Promise.all(
      bodies.map((body) =>
        fetch(`${BASE}/webhooks/whatsapp`, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            "X-Hub-Signature-256": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`,
          },
          body,
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 200));

    await server.stop("SIGKILL");

    await server.start({ JOB_WORKERS: "2" });
    const cookie = await adminCookie(BASE);
    await expect(async () => {
      const health = await (await fetch(`${BASE}/api/admin/queue`, { headers: { cookie } })).json();
      expect(health.webhooks).toMatchObject({ received: seeded + 40, unprocessed: 0 });
      expect(health.jobs.filter((j: { ready: number; running: number }) => j.ready + j.running > 0)).toEqual([]);
    }).toPass({ timeout: 30_000 });
  } finally {
    await server.dispose();
  }
});
