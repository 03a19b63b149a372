import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { spawn } from "node:child_process";
import net from "node:net";
import { createInterface } from "node:readline";
import { expect, vi } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { messageTemplates } from "~/.server/infrastructure/db/schema";
import type { MessageKey } from "~/.server/infrastructure/db/message-keys";
import { messageOfCallback } from "~/.server/domains/messaging/callback-data";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { queueMessage } from "~/.server/domains/messaging/queue";
import type { GraphClient } from "~/.server/infrastructure/clients/whatsapp-graph/graph-client";
import type { SandboxMessage } from "@jumbe/sandbox/meta/index";
import type { startGraphSandbox } from "./sandbox-waba";
import { keepIdleConnections } from "@jumbe/sandbox/test-server";

/**
 * Helpers for the sending engine's robustness tests: templates on both sides, what Meta received
 * (the sandbox's `GET control/messages`), the number's send bucket, and Graph clients and proxies
 * that stand in for a worker dying mid-send.
 */

export type GraphSandbox = Awaited<ReturnType<typeof startGraphSandbox>>;
export type Connected = { organizationId: string; wabaId: string; phoneNumberId: string };

/** A Kenyan mobile number per index whose last four digits are never one of the sandbox's magic endings (they all end in 8). */
export const recipient = (i: number) => `+25471${String(i).padStart(6, "0")}8`;

/** An approved UTILITY template with one body parameter, at Meta (the sandbox) and in Jumbe. */
export async function approvedTemplate(graph: GraphSandbox, t: Connected, name = "payment_received") {
  graph.sandbox.createTemplateAtMeta(t.wabaId, {
    name,
    language: "en",
    category: "UTILITY",
    components: [{ type: "BODY", text: "Payment received: {{1}}.", example: { body_text: [["KES 500"]] } }],
  });
  await db()
    .insert(messageTemplates)
    .values({
      organizationId: t.organizationId,
      wabaId: t.wabaId,
      name,
      language: "en",
      category: "UTILITY",
      status: "approved",
      components: [{ type: "BODY", text: "Payment received: {{1}}." }],
    });
  return name;
}

/** An approved template with this body (`{{1}}`…) at Meta (the sandbox) and in Jumbe; answers Meta's id. */
export async function approvedBodyTemplate(
  graph: GraphSandbox,
  t: Connected,
  name: string,
  category: "UTILITY" | "MARKETING",
  text: string,
) {
  const samples = [...text.matchAll(/\{\{\d+\}\}/g)].map((_, i) => `sample ${i + 1}`);
  return approvedAtBothEnds(
    graph,
    t,
    name,
    category,
    [{ type: "BODY", text, example: { body_text: [samples] } }],
    [{ type: "BODY", text }],
  );
}

/** A template approved at Meta (the sandbox, with its examples) and in Jumbe (without them); answers Meta's id. */
async function approvedAtBothEnds(
  graph: GraphSandbox,
  t: Connected,
  name: string,
  category: "UTILITY" | "MARKETING",
  atMetaComponents: unknown[],
  components: unknown[],
) {
  const atMeta = graph.sandbox.createTemplateAtMeta(t.wabaId, { name, language: "en", category, components: atMetaComponents as never });
  await db()
    .insert(messageTemplates)
    .values({
      organizationId: t.organizationId,
      wabaId: t.wabaId,
      name,
      language: "en",
      category,
      status: "approved",
      components: components as never,
    });
  return atMeta.id;
}

/**
 * An approved template with a media header, this body and these buttons (a URL ending in {{1}} is a
 * dynamic button; COPY_CODE takes a code) at Meta (the sandbox) and in Jumbe; answers Meta's id.
 */
export async function approvedMediaTemplate(
  graph: GraphSandbox,
  t: Connected,
  name: string,
  options: {
    category?: "UTILITY" | "MARKETING";
    header?: "IMAGE" | "VIDEO" | "DOCUMENT";
    body: string;
    buttons?: Record<string, unknown>[];
  },
) {
  const category = options.category ?? "UTILITY";
  const samples = [...options.body.matchAll(/\{\{\d+\}\}/g)].map((_, i) => `sample ${i + 1}`);
  const header = { type: "HEADER", format: options.header ?? "IMAGE" };
  const buttons = options.buttons?.length ? [{ type: "BUTTONS", buttons: options.buttons }] : [];
  return approvedAtBothEnds(
    graph,
    t,
    name,
    category,
    [
      { ...header, example: { header_handle: ["4::aW1hZ2UvanBlZw==:sample"] } },
      { type: "BODY", text: options.body, ...(samples.length ? { example: { body_text: [samples] } } : {}) },
      ...buttons,
    ],
    [header, { type: "BODY", text: options.body }, ...buttons],
  );
}

/** Queues one template message per recipient, in order; answers the message ids. */
export async function queueTemplates(organizationId: string, to: string[], name = "payment_received") {
  const ids: string[] = [];
  for (const [i, number] of to.entries()) {
    const queued = await queueMessage(organizationId, {
      to: number,
      content: { kind: "template", template: { name, language: "en", parameters: [`KES ${100 + i}`] } },
      source: "api",
    });
    ids.push(queued.id);
  }
  return ids;
}

/** Lets the lease of every claim on these messages run out: locked_until in the past stands in for 30 s passing. */
export async function leaseRunsOut(ids: string[]) {
  await rawQuery(`update messages set locked_until = now() - interval '1 second' where id = any($1::uuid[]) and locked_until is not null`, [
    ids,
  ]);
}

/** Runs the webhook queue until `n` of these messages carry a wamid (taken from their status webhooks). */
export async function untilAdopted(ids: string[], n: number, timeout = 30_000) {
  await vi.waitFor(
    async () => {
      await drainJobs();
      const [row] = await rawQuery<{ n: number }>(
        `select count(*)::int as n from messages where id = any($1::uuid[]) and wamid is not null`,
        [ids],
      );
      expect(row!.n).toBe(n);
    },
    { timeout, interval: 50 },
  );
}

/**
 * What Meta accepted from this number, oldest first, as the sandbox's control API lists it, with
 * `callbackData` read as the Jumbe message id it names (it carries the message's key, decision 183).
 */
export async function metaReceived(graph: GraphSandbox, phoneNumberId: string): Promise<SandboxMessage[]> {
  const base = graph.graphBase.replace(/\/graph$/, "");
  const response = await fetch(`${base}/control/messages?phoneNumberId=${encodeURIComponent(phoneNumberId)}`);
  expect(response.status).toBe(200);
  return withMessageIds(((await response.json()) as { messages: SandboxMessage[] }).messages);
}

/** The sandbox's messages with `callbackData` read as the Jumbe message id it names (decision 183). */
export function withMessageIds(messages: SandboxMessage[]): SandboxMessage[] {
  return messages.map((m) =>
    m.callbackData === undefined ? m : { ...m, callbackData: messageOfCallback(m.callbackData)?.id ?? m.callbackData },
  );
}

/** How many times Meta accepted each Jumbe message id (biz_opaque_callback_data). */
export function acceptsPerMessage(received: SandboxMessage[]) {
  const counts = new Map<string, number>();
  for (const m of received) counts.set(m.callbackData ?? "(none)", (counts.get(m.callbackData ?? "(none)") ?? 0) + 1);
  return counts;
}

/** Meta's error codes on this number's sends, as the sandbox logged its answers. */
export function sendErrorCodes(graph: GraphSandbox) {
  return graph.sandbox
    .calls()
    .filter((c) => c.step === "messages.send" && c.errorCode !== undefined)
    .map((c) => c.errorCode!);
}

/** Sets the number's send rate (messages a second) in its bucket, full. */
export async function setBucketRate(phoneNumberId: string, rate: number) {
  await rawQuery(
    `insert into sending_buckets (phone_number_id, rate, tokens, refilled_at) values ($1, $2::int, $2::float8, clock_timestamp())
     on conflict (phone_number_id) do update set rate = excluded.rate, tokens = excluded.tokens, refilled_at = excluded.refilled_at`,
    [phoneNumberId, rate],
  );
}

/** The messages' keys (decision 183), as the statements that name a message by its key take them, in the ids' order. */
export async function messageKeys(ids: string[]): Promise<MessageKey[]> {
  const rows = await rawQuery<MessageKey>(`select id, created_at::text as "createdAt" from messages where id = any($1::uuid[])`, [ids]);
  return ids.map((id) => rows.find((r) => r.id === id)!);
}

export async function messageRows(ids: string[]) {
  const rows = await rawQuery<Record<string, unknown> & { id: string }>(`select * from messages where id = any($1::uuid[])`, [ids]);
  return new Map(rows.map((r) => [r.id, r]));
}

/** Runs the webhook queue until every message has one of `statuses` (the sandbox's status webhooks arrive meanwhile). */
export async function settleStatuses(ids: string[], statuses: string[], timeout = 30_000) {
  await vi.waitFor(
    async () => {
      await drainJobs();
      const [row] = await rawQuery<{ n: number }>(
        `select count(*)::int as n from messages where id = any($1::uuid[]) and status = any($2::text[])`,
        [ids, statuses],
      );
      expect(row!.n).toBe(ids.length);
    },
    { timeout, interval: 50 },
  );
}

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A Graph client whose sendMessage goes through to Meta for the first `through` calls and then never
 * answers: the worker holding that batch is as good as dead (its promise is abandoned).
 */
export function dyingClient(real: GraphClient, through: number): GraphClient {
  let calls = 0;
  return {
    ...real,
    sendMessage: (phoneNumberId, token, body) => (calls++ < through ? real.sendMessage(phoneNumberId, token, body) : new Promise(() => {})),
  };
}

/**
 * An HTTP proxy in front of the sandbox's Graph API that passes the first `through` sends on to Meta
 * and answers none of them (nor any later one, which it keeps from Meta): a process calling through
 * it is stuck mid-batch with some messages accepted by Meta and none settled. Other calls pass.
 */
export async function stallingProxy(graphBase: string, through: number) {
  const target = new URL(graphBase);
  let passed = 0;
  const held: ServerResponse[] = [];
  const forward = (req: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: IncomingMessage["headers"]; body: Buffer }>((resolve, reject) => {
      const out = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
        },
      );
      out.on("error", reject);
      out.end(body);
    });
  const server: Server = keepIdleConnections(
    createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const isSend = req.method === "POST" && /\/messages$/.test(new URL(req.url ?? "/", "http://x").pathname);
      if (isSend) {
        held.push(res);
        if (passed++ < through) await forward(req, body).catch(() => undefined);
        return;
      }
      const answer = await forward(req, body);
      res.writeHead(answer.status, { "content-type": String(answer.headers["content-type"] ?? "application/json") });
      res.end(answer.body);
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  return {
    graphBase: `http://127.0.0.1:${port}${target.pathname}`,
    /** Sends that reached the proxy (Meta got the first `through` of them). */
    sendsSeen: () => held.length,
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface DispatcherTotals {
  claimed: number;
  accepted: number;
  deferred: number;
  retrying: number;
  failed: number;
  errors: number;
}

/**
 * Starts tests/support/dispatcher-process.ts in a child process on this PostgreSQL database, calling
 * Meta at `graphBase`; answers once it polls. `stop()` ends it with SIGTERM and answers what its
 * rounds did; `kill()` ends it with SIGKILL mid-whatever, as a crash or the OOM killer would.
 */
export async function startDispatcherProcess(
  databaseUrl: string,
  graphBase: string,
  workers = 2,
  options: { feedCampaigns?: boolean } = {},
) {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/support/dispatcher-process.ts"], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      GRAPH_API_BASE_URL: graphBase,
      DISPATCH_WORKERS: String(workers),
      FEED_CAMPAIGNS: options.feedCampaigns ? "1" : "0",
      LOG_LEVEL: "silent",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const said: unknown[] = [];
  const waiters: (() => void)[] = [];
  let stderr = "";
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (!line.startsWith("DISPATCHER ")) return;
    said.push(JSON.parse(line.slice("DISPATCHER ".length)));
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const nextSaid = (index: number) =>
    new Promise<unknown>((resolve, reject) => {
      const check = () => (said.length > index ? resolve(said[index]) : waiters.push(check));
      void exited.then((code) => reject(new Error(`the dispatcher process exited (${code}) before it said line ${index + 1}: ${stderr}`)));
      check();
    });
  await nextSaid(0);
  return {
    pid: child.pid!,
    stop: async () => {
      child.kill("SIGTERM");
      const totals = (await nextSaid(1)) as DispatcherTotals;
      await exited;
      return totals;
    },
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
    exited,
    stderr: () => stderr,
  };
}
