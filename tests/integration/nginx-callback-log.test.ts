import { readFileSync } from "node:fs";
import http from "node:http";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { freePort } from "../support/built-server";
import { findNginx, siteConfigForTest, SITE_CONFIG, startNginx } from "../support/nginx";
import { rawRequest } from "../support/raw-http";

// Issue 38: the M-Pesa callback addresses carry their secret in the path, and whoever reads nginx's
// access log must not find it there. deploy/nginx/jumbe.conf as shipped (made runnable as the nginx
// site test does) in front of two stand-in upstreams that answer 200; needs only nginx.
const binary = findNginx();

describe.runIf(!!binary)("nginx's access log", () => {
  it("records ordinary requests but leaves out the M-Pesa callback paths and their secrets", async () => {
    const upstreams = [await freePort(), await freePort()] as [number, number];
    const standIns = upstreams.map((port) => http.createServer((_req, res) => res.end('{"ResultCode":0}')).listen(port, "127.0.0.1"));
    await Promise.all(standIns.map((server) => once(server, "listening")));
    const ports = { http: await freePort(), https: await freePort() };
    const nginx = await startNginx(binary!, siteConfigForTest(readFileSync(SITE_CONFIG, "utf8"), { ...ports, upstreams }), ports);
    try {
      const host = `jumbe.example.co.ke:${ports.https}`;
      const paths = [
        "/webhooks/mpesa/stk/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/StkSecretNotForLogs0001",
        "/webhooks/paybill/PaybillSecretNotForLogs2/confirmation",
        "/Webhooks/MPESA/stk/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/StkSecretNotForLogs0003",
        "/billing?probe=callback-log",
      ];
      for (const path of paths) {
        const answer = await rawRequest(nginx.base, {
          method: "POST",
          path,
          headers: { host, "content-type": "application/json" },
          body: "{}",
        });
        expect(answer.status, path).toBe(200);
      }
      // nginx writes a line as it finishes a request: wait for the last one's.
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && !nginx.accessLog().some((line) => line.endsWith("/billing?probe=callback-log")))
        await new Promise((resolve) => setTimeout(resolve, 50));
      const log = nginx.accessLog();
      expect(log.filter((line) => line.endsWith("/billing?probe=callback-log"))).toHaveLength(1);
      expect(log.filter((line) => /NotForLogs|webhooks/i.test(line))).toEqual([]);
    } finally {
      await nginx.stop();
      await Promise.all(standIns.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });
});
