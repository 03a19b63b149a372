import type { Server } from "node:http";
import express from "express";
import { db } from "~/.server/infrastructure/db/client";
import { whatsappAccounts, whatsappPhoneNumbers } from "~/.server/infrastructure/db/schema";
import { env } from "~/.server/infrastructure/config/env";
import { encryptSecret } from "~/.server/infrastructure/security/crypto";
import { createMetaSandbox, type MetaSandbox } from "@jumbe/sandbox/meta/index";
import { keepIdleConnections } from "@jumbe/sandbox/test-server";

/**
 * The Meta sandbox's Graph API on a socket of its own, for tests that call Meta for real (template
 * submission and deletion). Its reviewer waits ten minutes, so no test sees a decision it did not
 * ask for (reviewTemplatesNow decides at once); its webhooks go to `webhookUrl`, else nowhere.
 */
export async function startGraphSandbox(
  options: {
    webhookUrl?: string;
    statusDelaysMs?: { sent?: number; delivered?: number; read?: number };
    /** Meta's limits (the sandbox's defaults otherwise: 80 a second, pair rate on) and its clock. */
    throughputPerSecond?: number;
    pairRateLimit?: boolean;
    /** Sent messages the sandbox keeps for metaReceived (default 10,000). */
    keepMessages?: number;
    now?: () => number;
    /** Redeliveries of a webhook Jumbe did not take (the sandbox's default with a webhookUrl: 8 from 1 s, doubling). */
    webhookRetry?: { attempts: number; baseDelayMs: number };
  } = {},
) {
  const sandbox: MetaSandbox = createMetaSandbox({
    appId: env().META_APP_ID,
    appSecret: env().META_APP_SECRET,
    configId: env().META_CONFIG_ID,
    webhookUrl: options.webhookUrl ?? "http://127.0.0.1:9/webhooks/whatsapp",
    webhookRetry: options.webhookRetry ?? (options.webhookUrl ? undefined : { attempts: 1, baseDelayMs: 0 }),
    batchWindowMs: 1,
    templateReviewDelayMs: 600_000,
    statusDelaysMs: options.statusDelaysMs,
    throughputPerSecond: options.throughputPerSecond,
    pairRateLimit: options.pairRateLimit,
    keepMessages: options.keepMessages,
    now: options.now,
  });
  const app = express();
  app.use("/sandbox/meta", sandbox.router);
  const server = await new Promise<Server>((resolve) => {
    const s = keepIdleConnections(app.listen(0, "127.0.0.1", () => resolve(s)));
  });
  const address = server.address();
  const graphBase = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/sandbox/meta/graph`;

  /** A WABA at the sandbox, connected to the organisation as Embedded Signup leaves it (with a token the sandbox accepts). */
  async function connect(organizationId: string, name = "Sandbox Biashara") {
    const business = sandbox.createTestBusiness({ businessName: name, verifiedName: name, registered: true });
    const code = sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] });
    const query = new URLSearchParams({ client_id: env().META_APP_ID, client_secret: env().META_APP_SECRET, code });
    const exchanged = await fetch(`${graphBase}/${env().GRAPH_API_VERSION}/oauth/access_token?${query}`);
    const { access_token: token } = (await exchanged.json()) as { access_token: string };
    if (!token) throw new Error(`the sandbox did not exchange the code (${exchanged.status})`);
    const [account] = await db()
      .insert(whatsappAccounts)
      .values({
        organizationId,
        wabaId: business.wabaId,
        businessId: business.businessId,
        accessTokenEncrypted: encryptSecret(token),
        subscribed: true,
      })
      .returning();
    // Its number, registered for the Cloud API, as Embedded Signup leaves it.
    const [phone] = await db()
      .insert(whatsappPhoneNumbers)
      .values({
        organizationId,
        accountId: account!.id,
        phoneNumberId: business.phoneNumberId,
        displayPhoneNumber: business.displayPhoneNumber,
        phoneDigits: business.displayPhoneNumber.replace(/\D/g, ""),
        verifiedName: name,
        qualityRating: "GREEN",
        status: "CONNECTED",
        platformType: "CLOUD_API",
        registeredAt: new Date(),
      })
      .returning();
    return { account: account!, wabaId: business.wabaId, phone: phone!, phoneNumberId: business.phoneNumberId };
  }

  return {
    sandbox,
    graphBase,
    connect,
    close: async () => {
      await sandbox.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
