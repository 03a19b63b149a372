import { rawQuery } from "~/.server/infrastructure/db/client";
import { receiveIncomingSms, receiveSmsDeliveryReport, saveSmsConnection } from "~/.server/domains/sms";
import { SMS_REPORT_QUEUE } from "~/.server/domains/sms/receivers";
import { runJobBatch } from "~/.server/infrastructure/jobs/worker";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { createVerifiedUser } from "./accounts";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { env, setEnv } from "~/.server/infrastructure/config/env";
import { API_KEY, SENDER_ID, startAfricastalking, USERNAME, type AfricastalkingHarness } from "@jumbe/sandbox/africastalking/test-support";

/**
 * The Africa's Talking sandbox on a socket of its own for the whole file, Jumbe's client pointed at it
 * before each test (`env` adds more, `reset` empties the sandbox). Call it at a file's top level; the
 * answer reads as the harness from the first test on.
 */
export function africastalkingForFile(
  options: { sandbox?: Parameters<typeof startAfricastalking>[0]; env?: Record<string, string | number>; reset?: boolean } = {},
): AfricastalkingHarness {
  let harness: AfricastalkingHarness | undefined;
  beforeAll(async () => {
    harness = await startAfricastalking(options.sandbox);
  });
  afterAll(async () => {
    await harness?.close();
  });
  beforeEach(() => {
    setEnv({ ...env(), AFRICASTALKING_BASE_URL: harness!.base, ...options.env } as ReturnType<typeof env>);
    if (options.reset) harness!.sandbox.reset();
  });
  return new Proxy({} as AfricastalkingHarness, {
    get(_, key) {
      if (!harness) throw new Error("africastalkingForFile: read the sandbox inside a test or hook");
      const value: unknown = Reflect.get(harness, key);
      return typeof value === "function" ? value.bind(harness) : value;
    },
  });
}

/** An organisation with its owner, as the SMS domain's actor (issue 77). */
export async function smsTenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const [user] = await rawQuery<{ id: string; organization_id: string }>(`select id, organization_id from users where email = $1`, [
    account.email,
  ]);
  const actor = { user: { id: user!.id }, organization: { id: user!.organization_id }, role: "owner" as const };
  return { ...account, actor, organizationId: user!.organization_id };
}
export type SmsTenant = Awaited<ReturnType<typeof smsTenant>>;

/** Connected to the sandbox's test account; answers the callback token. */
export async function connectSms(t: Pick<SmsTenant, "actor" | "organizationId">) {
  await saveSmsConnection(t.actor, { username: USERNAME, apiKey: API_KEY, senderId: SENDER_ID });
  const [row] = await rawQuery<{ callback_token: string }>(`select callback_token from sms_connections where organization_id = $1`, [
    t.organizationId,
  ]);
  return row!.callback_token;
}

/** A prepaid wallet of `cents`, nothing held. */
export async function fundPrepaid(t: SmsTenant, cents: number) {
  await rawQuery(`update organizations set billing_type = 'prepaid' where id = $1`, [t.organizationId]);
  await rawQuery(
    `insert into wallets (organization_id, balance_cents) values ($1, $2)
     on conflict (organization_id) do update set balance_cents = excluded.balance_cents, held_cents = 0`,
    [t.organizationId, cents],
  );
}

export const walletOf = async (t: SmsTenant) =>
  (
    await rawQuery<{ balance_cents: string; held_cents: string }>(
      `select balance_cents, held_cents from wallets where organization_id = $1`,
      [t.organizationId],
    )
  ).map((w) => ({ balance: Number(w.balance_cents), held: Number(w.held_cents) }))[0];

/** An incoming SMS's form as AT posts it. */
export const incomingSms = (fields: Record<string, string>) =>
  new URLSearchParams({ to: "40404", date: "2026-11-30 07:00:00", linkId: "SampleLinkId1", ...fields });

/** 10:00 in Nairobi: outside quiet hours. */
export const DAYTIME = new Date("2026-11-30T07:00:00Z");

/** AT's delivery report through its callback, then applied as the queue's worker would: the callback's answer. */
export async function reportDelivery(token: string, form: URLSearchParams) {
  const answer = await receiveSmsDeliveryReport(token, form);
  await applyQueuedReports();
  return answer;
}

/** Applies the delivery reports waiting in their queue, as its worker would (by the batch); answers how many. */
export async function applyQueuedReports() {
  registerJobHandlers();
  let applied = 0;
  for (let n = await runJobBatch(SMS_REPORT_QUEUE); n > 0; n = await runJobBatch(SMS_REPORT_QUEUE)) applied += n;
  return applied;
}

/** The customer at `phone` writes by SMS (id: AT's id of their SMS): answers the conversation it lands in. */
export async function smsConversationWith(t: Pick<SmsTenant, "organizationId">, token: string, phone: string, id: string) {
  await receiveIncomingSms(token, incomingSms({ from: phone, text: "Habari", id }));
  const [conversation] = await rawQuery<{ id: string }>(
    `select c.id from conversations c join contacts k on k.id = c.contact_id where c.organization_id = $1 and k.phone = $2`,
    [t.organizationId, phone],
  );
  return conversation!.id;
}
