import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * The port and data directory of this Playwright run's server. Playwright loads its config in the
 * main process and again in every worker, so they are chosen once (a free port from the kernel, a
 * fresh temporary directory) and handed down through the environment: two runs on one machine
 * never share either.
 */
export function e2eServer() {
  if (!process.env.JUMBE_E2E_PORT) {
    const script =
      "const s=require('node:net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
    process.env.JUMBE_E2E_PORT = execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }).trim();
  }
  process.env.JUMBE_E2E_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), "jumbe-e2e-"));
  const port = Number(process.env.JUMBE_E2E_PORT);
  return { port, baseUrl: `http://127.0.0.1:${port}`, dataDir: process.env.JUMBE_E2E_DATA_DIR };
}
