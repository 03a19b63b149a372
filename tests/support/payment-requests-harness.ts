import { beforeEach, vi } from "vitest";
import { randomBytes } from "node:crypto";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { mpesaShortcodes } from "~/.server/infrastructure/db/schema";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { encryptSecret } from "~/.server/infrastructure/security/crypto";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { clearDarajaTokens } from "~/.server/infrastructure/clients/daraja";
import { createVerifiedUser } from "./accounts";
import { metaSandboxForFile } from "./meta-harness";
import { paymentsHarnessForFile } from "./payments-harness";

/**
 * Payment requests end to end (issue 76): the Meta sandbox (the customer's WhatsApp) and the M-Pesa
 * sandbox with Jumbe's routes on one origin (Daraja's callbacks reach /webhooks/pay/...). A tenant's
 * paybill is the harness's sandbox paybill (its default shortcode), its credentials sealed as
 * Settings → Payments seals them.
 */
export function paymentRequestsHarnessForFile() {
  const meta = metaSandboxForFile();
  const pay = paymentsHarnessForFile();
  // What `until` reports when it gives up: the customer's webhooks the Meta sandbox has not delivered.
  sandboxState = () =>
    meta.sandbox
      .deliveries()
      .filter((d) => d.state !== "delivered")
      .map((d) => ({ fields: d.fields, state: d.state, attempts: d.attempts, lastStatus: d.lastStatus, lastError: d.lastError }));
  /** Both harnesses' settings at once (each sets the whole environment), with `extra` over them. */
  function setHarnessEnv(extra: Record<string, string> = {}) {
    setEnv(
      parseEnv({
        NODE_ENV: "test",
        APP_URL: pay.origin,
        GRAPH_API_BASE_URL: meta.graph.graphBase,
        GRAPH_API_TIMEOUT_MS: "3000",
        MPESA_BASE_URL: `${pay.origin}/sandbox/mpesa`,
        MPESA_SHORTCODE_BASE_URLS: `sandbox=${pay.origin}/sandbox/mpesa`,
        MPESA_CALLBACK_BASE_URL: pay.origin,
        MPESA_TIMEOUT_MS: "120000",
        WEBHOOK_ALLOW_LOOPBACK: "1",
        ...extra,
      }),
    );
  }
  beforeEach(() => {
    setHarnessEnv();
    clearDarajaTokens();
  });

  async function tenant(name: string) {
    const user = await createVerifiedUser({ businessName: name });
    const actor = { organizationId: user.organization.id, userId: user.user.id };
    const connected = await meta.graph.connect(actor.organizationId, name);
    const callbackToken = randomBytes(24).toString("base64url");
    const [shortcode] = await db()
      .insert(mpesaShortcodes)
      .values({
        organizationId: actor.organizationId,
        label: "Main paybill",
        kind: "paybill",
        businessShortCode: "174379",
        environment: "sandbox",
        consumerKeySealed: encryptSecret("harness-consumer-key"),
        consumerKeyHint: "-key",
        consumerSecretSealed: encryptSecret("harness-consumer-secret"),
        passkeySealed: encryptSecret("bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919"),
        callbackToken,
        isDefault: true,
      })
      .returning();
    return { ...actor, actor, user, phoneNumberId: connected.phoneNumberId, shortcode: shortcode!, callbackToken };
  }
  type Tenant = Awaited<ReturnType<typeof tenant>>;

  /** The customer writes (the window opens); answers their conversation's id. */
  async function customerWrites(t: Tenant, from: string, text = "Habari, nataka kulipa.") {
    await meta.customerWrites(t.phoneNumberId, from, { text });
    const [row] = await rawQuery<{ id: string }>(
      `select v.id from conversations v join contacts c on c.id = v.contact_id where v.organization_id = $1 and c.phone = $2`,
      [t.organizationId, `+${from}`],
    );
    return row!.id;
  }

  /** The request's message as sent to Meta (its wamid), once the dispatcher has sent it. */
  async function sentWamid(t: Tenant, requestId: string) {
    return until(
      async () =>
        (
          await rawQuery<{ wamid: string | null }>(
            `select m.wamid from payment_requests r join messages m on m.id = r.message_id where r.organization_id = $1 and r.id = $2`,
            [t.organizationId, requestId],
          )
        )[0]?.wamid ?? null,
      (wamid) => !!wamid,
    ) as Promise<string>;
  }

  /** The customer taps one of the request's buttons in WhatsApp. */
  async function tap(t: Tenant, from: string, requestId: string, action: "pay" | "other" | "retry", title = "Pay with M-Pesa") {
    const wamid = await sentWamid(t, requestId);
    await meta.sandbox.sendInbound({
      phoneNumberId: t.phoneNumberId,
      from,
      name: "Achieng Otieno",
      type: "button_reply",
      contextId: wamid,
      replyId: `payreq:${requestId}:${action}`,
      title,
    });
  }

  return { meta, pay, tenant, customerWrites, tap, sentWamid, setHarnessEnv };
}

/**
 * Waits until the condition holds, running the job queue meanwhile. A job put back after a failure
 * of the moment (its backoff grows 2, 4, 8 s...) is run again at once, and said on stderr with its
 * error: the outcome is what is checked, and on a loaded machine a retry's wait alone outlasted the
 * test's (CI's PostgreSQL pass, twice).
 */
export async function until<T>(read: () => Promise<T>, check: (value: T) => boolean) {
  try {
    return await waitRunningJobs(read, check);
  } catch (error) {
    // Where it stopped: the jobs not finished, the request's attempts, the webhooks not delivered.
    const jobs = await rawQuery(
      `select queue, attempts, run_at, locked_until, last_error from jobs where finished_at is null and failed_at is null order by id desc limit 20`,
    );
    const attempts = await rawQuery(
      `select request_id, state, result_code, result_desc, checkout_request_id, finished_at from payment_attempts order by created_at desc limit 5`,
    );
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n` +
        `jobs waiting: ${JSON.stringify(jobs)}\nlatest payment attempts: ${JSON.stringify(attempts)}\n` +
        `webhooks not delivered: ${JSON.stringify(sandboxState?.() ?? [])}`,
    );
  }
}

/** The customer's webhooks the Meta sandbox has not delivered (set by the harness of the file). */
let sandboxState: (() => unknown[]) | undefined;

function waitRunningJobs<T>(read: () => Promise<T>, check: (value: T) => boolean) {
  return vi.waitFor(
    async () => {
      const retried = await rawQuery<{ queue: string; attempts: number; last_error: string }>(
        `update jobs set run_at = now() where finished_at is null and failed_at is null and attempts > 0 and last_error is not null
           and run_at > now() returning queue, attempts, last_error`,
      );
      for (const job of retried) console.warn(`retried at once: ${job.queue} (attempt ${job.attempts}): ${job.last_error}`);
      await drainJobs();
      // The answers and requests queued meanwhile, sent to Meta (their wamids).
      await drainDispatcher();
      const value = await read();
      if (!check(value)) throw new Error(`not yet: ${JSON.stringify(value)}`);
      return value;
    },
    // A minute: the customer's webhook is retried by the Meta sandbox (10 s a try, then 1, 2, 4 s...) when Jumbe answered
    // late on a loaded machine.
    { timeout: 60_000, interval: 25 },
  );
}

export const requestRow = async (id: string) =>
  (
    await rawQuery<{
      status: string;
      paid_receipt: string | null;
      paid_amount_kes: number | null;
      amount_mismatch: boolean;
      paid_via: string | null;
      phone_asked_at: string | null;
    }>(`select status, paid_receipt, paid_amount_kes, amount_mismatch, paid_via, phone_asked_at from payment_requests where id = $1`, [id])
  )[0]!;

export const attemptsOf = (id: string) =>
  rawQuery<{ id: string; phone: string; state: string; result_code: string | null; checkout_request_id: string | null }>(
    `select id, phone, state, result_code, checkout_request_id from payment_attempts where request_id = $1 order by created_at`,
    [id],
  );

/** What the customer was sent by the request (after its own message), oldest first. */
export const answersTo = (organizationId: string, phone: string) =>
  rawQuery<{
    body: string;
    message_type: string;
    payload: { interactive?: { action?: { buttons?: { reply: { id: string; title: string } }[] } } };
  }>(
    `select body, message_type, payload from messages where organization_id = $1 and direction = 'outbound' and recipient_phone = $2 order by seq`,
    [organizationId, phone],
  );
