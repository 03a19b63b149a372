import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { createRule } from "~/.server/domains/automations/rules";
import { signingSecrets, signatureHeader } from "~/.server/domains/webhooks-out/secret";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { metaSandboxForFile } from "../support/meta-harness";
import { automationHarness, until } from "../support/automation-harness";

// A keyword rule's "call a webhook" (issue 44): the customer's message POSTed to the rule's address,
// signed like webhooks out, queued with the run (never lost), retried on a failure, checked for SSRF.

const meta = metaSandboxForFile({ env: { WEBHOOK_ALLOW_LOOPBACK: "1" } });
const { tenant, customerWrites } = automationHarness(meta);

let received: { headers: IncomingHttpHeaders; body: string }[] = [];
let failNext = 0;
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (c: Buffer) => chunks.push(c));
  request.on("end", () => {
    if (failNext > 0) {
      failNext--;
      response.writeHead(503).end("busy");
      return;
    }
    received.push({ headers: request.headers, body: Buffer.concat(chunks).toString() });
    response.writeHead(200).end("ok");
  });
});
let url = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/shamba/hooks`;
});
afterAll(() => new Promise((resolve) => receiver.close(resolve)));

describe("a rule that calls a webhook", () => {
  it("needs a webhook secret and an address the checks pass, then POSTs the message signed, once, after a failure", async () => {
    const t = await tenant("Shamba Fresh Exporters");
    const refusedField = async (webhookUrl: string) => {
      try {
        await createRule(t.actor, { name: "Order", matchType: "contains", keywords: ["order"], webhookUrl });
        return "saved";
      } catch (error) {
        if (isRefusal(error)) return `${error.field}: ${error.message}`;
        throw error;
      }
    };
    expect(await refusedField(url)).toBe("webhookUrl: Set up a webhook on the Developers page first: its secret signs these calls.");
    await rawQuery(`insert into webhook_endpoints (organization_id, url, events) values ($1, $2, $3)`, [
      t.organizationId,
      url,
      ["message.received"],
    ]);
    expect(await refusedField("http://10.0.0.7/hooks")).toBe(
      "webhookUrl: Give an https address on the internet, not a private, loopback or link-local one.",
    );
    expect(await refusedField("ftp://example.com/x")).toMatch(/^webhookUrl: /);

    const rule = await createRule(t.actor, { name: "Order", matchType: "contains", keywords: ["order", "oda"], webhookUrl: url });
    expect(rule.actions).toEqual([{ type: "webhook", url }]);
    received = [];
    failNext = 1;
    await customerWrites(t, "254712000501", "Nataka kuweka oda ya parachichi");
    // The first call met a 503: the queue tries again after its backoff.
    await rawQuery(`update jobs set run_at = now() where queue = 'automations.webhook' and finished_at is null`);
    const [call] = await until(
      async () => {
        await rawQuery(`update jobs set run_at = now() where queue = 'automations.webhook' and finished_at is null`);
        return received;
      },
      (r) => r.length === 1,
    );
    const body = JSON.parse(call!.body) as { type: string; data: Record<string, unknown> };
    expect(body.type).toBe("automation.rule");
    expect(body.data).toMatchObject({
      rule: { id: rule.id, name: "Order" },
      message: { type: "text", body: "Nataka kuweka oda ya parachichi" },
      from: "+254712000501",
      phoneNumberId: t.phoneNumberId,
    });
    const secrets = (await signingSecrets(t.organizationId))!;
    const id = String(call!.headers["webhook-id"]);
    const timestamp = Number(call!.headers["webhook-timestamp"]);
    expect(call!.headers["webhook-signature"]).toBe(signatureHeader(id, timestamp, call!.body, [secrets.current]));
    // No reply was asked for: the customer hears nothing, and the call was made once.
    expect(await rawQuery(`select id from messages where organization_id = $1 and direction = 'outbound'`, [t.organizationId])).toEqual([]);
    expect(received).toHaveLength(1);
    expect(failNext).toBe(0);
  });
});
