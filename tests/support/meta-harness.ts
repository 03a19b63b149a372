import { afterAll, beforeAll, beforeEach, expect, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { queueMessage, type SendRequest } from "~/.server/domains/messaging/queue";
import type { MetaSandbox } from "@jumbe/sandbox/meta/index";
import { startGraphSandbox } from "./sandbox-waba";
import { startReceiver } from "./whatsapp";
import { isRefusal } from "~/.server/infrastructure/refusal";

type GraphSandbox = Awaited<ReturnType<typeof startGraphSandbox>>;
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * The Meta sandbox's Graph API and Jumbe's production webhook receiver, on sockets of their own for
 * the whole file: the sandbox's webhooks go to the receiver, each test starts with the sandbox
 * empty and Jumbe's Graph client pointed at it. Call it at a test file's top level; the handle's
 * fields are there from the first test on.
 */
export function metaSandboxForFile(
  options: {
    /** Status webhooks at once by default (`sent`, `delivered`, `read`). */
    statusDelaysMs?: { sent?: number; delivered?: number; read?: number };
    /** APP_URL for each test (read then, so a server started in the file's own beforeAll can give it). */
    appUrl?: () => string;
    /** More environment for each test (e.g. WEBHOOK_ALLOW_LOOPBACK for a receiver on this machine). */
    env?: Record<string, string>;
    /** The sandbox's clock (its 24-hour windows, its status timestamps); default Date.now. */
    now?: () => number;
  } = {},
) {
  let graph: GraphSandbox | undefined;
  let receiver: Receiver | undefined;
  const started = <T>(value: T | undefined) => {
    if (!value) throw new Error("metaSandboxForFile: read the sandbox inside a test or hook");
    return value;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    graph = await startGraphSandbox({
      webhookUrl: receiver.url,
      statusDelaysMs: options.statusDelaysMs ?? { sent: 0, delivered: 0, read: 0 },
      now: options.now,
    });
  });

  afterAll(async () => {
    await graph?.close();
    await receiver?.close();
  });

  beforeEach(() => {
    setEnv(
      parseEnv({
        NODE_ENV: "test",
        APP_URL: options.appUrl?.() ?? "http://jumbe.test",
        GRAPH_API_BASE_URL: started(graph).graphBase,
        GRAPH_API_TIMEOUT_MS: "3000",
        ...options.env,
      }),
    );
    started(graph).sandbox.reset();
  });

  return {
    /** The Graph sandbox: `connect()` a tenant's WABA, `graphBase` for direct calls. */
    get graph(): GraphSandbox {
      return started(graph);
    },
    get sandbox(): MetaSandbox {
      return started(graph).sandbox;
    },
    get receiver(): Receiver {
      return started(receiver);
    },
    /** A customer writes to the business number; resolves once Jumbe stored it through the webhook and its queue. */
    async customerWrites(phoneNumberId: string, from: string, message: { name?: string; text?: string } = {}) {
      await started(graph).sandbox.sendInbound({
        phoneNumberId,
        from,
        name: message.name ?? "Wanjiku Kamau",
        text: message.text ?? "Habari, nataka kujua salio langu.",
      });
      await vi.waitFor(
        async () => {
          await drainJobs();
          const rows = await rawQuery(
            `select 1 from messages where direction = 'inbound' and payload ->> 'from' = $1 and phone_number_id = $2`,
            [from.replace(/^\+/, ""), phoneNumberId],
          );
          expect(rows.length).toBeGreaterThan(0);
        },
        { timeout: 30_000, interval: 20 },
      );
    },
  };
}

/** The sending engine's refusal of a request (status, code, message); fails when it was queued instead. */
export async function refusalOf(organizationId: string, request: SendRequest) {
  try {
    await queueMessage(organizationId, request);
  } catch (error) {
    if (isRefusal(error, "send")) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error("the message was queued");
}
