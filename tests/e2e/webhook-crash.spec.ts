import { spawn, type ChildProcess } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test, expect } from "./fixtures";
import { ADMIN } from "./helpers";

// A process killed (SIGKILL) right after acknowledging webhooks loses none of them: a second process
// on the same database processes them all. A server of its own, so the shared one is untouched.

const PORT = 3297;
const BASE = `http://127.0.0.1:${PORT}`;
const SECRET = "jumbe-sandbox-meta-app-secret";

function startServer(dataDir: string, workers: number) {
  const child = spawn(process.execPath, ["build/server/index.js"], {
    env: { ...process.env, PORT: String(PORT), HOST: "127.0.0.1", DATA_DIR: dataDir, APP_URL: BASE, NODE_ENV: "development", SANDBOX: "1", LOG_LEVEL: "error", JOB_WORKERS: String(workers) },
    stdio: "ignore",
  });
  return child;
}

async function healthy() {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${BASE}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error("server did not start");
}

const exited = (child: ChildProcess) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once("exit", resolve)));

test("webhooks acknowledged before a crash are all processed after the restart", async ({ javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "no browser involved: run once");
  test.setTimeout(120_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "jumbe-crash-"));
  let server = startServer(dataDir, 0); // no workers: nothing is processed before the crash
  try {
    await healthy();
    const bodies = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({
        object: "whatsapp_business_account",
        entry: [{ id: "1000000000000001", changes: [{ field: "messages", value: { messaging_product: "whatsapp", metadata: { display_phone_number: "254700000001", phone_number_id: "1000000000000002" }, statuses: [{ id: `wamid.CRASH${i}`, status: "delivered", timestamp: "1750030073", recipient_id: "254712345678" }] } }] }],
      }),
    );
    const answers = await Promise.all(
      bodies.map((body) =>
        fetch(`${BASE}/webhooks/whatsapp`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Hub-Signature-256": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}` },
          body,
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 200));

    server.kill("SIGKILL");
    await exited(server);

    server = startServer(dataDir, 2);
    await healthy();
    const signin = await fetch(`${BASE}/api/auth/signin`, { method: "POST", headers: { "Content-Type": "application/json", Origin: BASE }, body: JSON.stringify(ADMIN) });
    expect(signin.status).toBe(200);
    const cookie = signin.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    await expect(async () => {
      const health = await (await fetch(`${BASE}/api/admin/queue`, { headers: { cookie } })).json();
      expect(health.webhooks).toMatchObject({ received: 40, unprocessed: 0 });
      expect(health.jobs.filter((j: { ready: number; running: number }) => j.ready + j.running > 0)).toEqual([]);
    }).toPass({ timeout: 20_000 });
  } finally {
    server.kill("SIGTERM");
    await exited(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
