import { randomBytes } from "node:crypto";
import express, { Router } from "express";
import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { evaluateAlertRules, INSTANCE_MISSING_SECONDS } from "../../domains/admin/system/alerts";
import { sandboxGate } from "@jumbe/sandbox/access";
import { queryRows } from "../../infrastructure/db/query";

/**
 * The System tab's fault in sandbox mode (issue 19): a Jumbe instance that stopped beating. POST
 * /sandbox/system/control/missing-instance stores the heartbeat of an instance that is not running,
 * last seen five minutes ago, and evaluates the alert rules at once, so the "instance missing" alert
 * opens as it would on a real deployment when a machine goes away (browser tests resolve it). On a
 * demo host it asks for SANDBOX_CONTROL_TOKEN like the other control APIs.
 */
export function sandboxSystemRouter(access: { controlToken?: string; secureCookie?: boolean } = {}) {
  const router = Router({ caseSensitive: true });
  const gate = sandboxGate({
    token: access.controlToken,
    secureCookie: access.secureCookie,
    loginPath: "/sandbox/token",
    home: "/sandbox/mail",
  });
  router.post("/control/missing-instance", gate.json, express.json({ limit: "4kb" }), async (req, res) => {
    const body = (req.body ?? {}) as { hostname?: unknown };
    const hostname =
      typeof body.hostname === "string" && /^[a-z0-9.-]{1,63}$/i.test(body.hostname)
        ? body.hostname
        : `jumbe-web-${randomBytes(2).toString("hex")}`;
    const pid = 1000 + Math.floor(Math.random() * 60_000);
    const instanceId = `${hostname}:${pid}:${randomBytes(3).toString("hex")}`;
    const silentFor = INSTANCE_MISSING_SECONDS * 5;
    await db().execute(sql`
      insert into instance_heartbeats (instance_id, hostname, pid, version, started_at, last_seen_at, resources)
      values (${instanceId}, ${hostname}, ${pid}, null, now() - interval '1 hour', now() - make_interval(secs => ${silentFor}),
              ${JSON.stringify({ cpuPercent: 3.5, rssBytes: 180 * 1024 * 1024, heapUsedBytes: 90 * 1024 * 1024, eventLoopP99Ms: 12 })}::jsonb)`);
    await evaluateAlertRules();
    const [alert] = await queryRows<{ id: string; title: string }>(
      db(),
      sql`select id, title from system_alerts where rule = 'instance_missing' and key = ${instanceId} and resolved_at is null`,
    );
    res.setHeader("Cache-Control", "no-store");
    res.status(201).json({ instanceId, hostname, pid, alert: alert ?? null });
  });
  return router;
}
