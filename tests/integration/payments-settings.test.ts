import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { env, setEnv } from "~/.server/infrastructure/config/env";
import { captureLogs } from "~/.server/infrastructure/log";
import { hashPassword } from "~/.server/domains/auth/password";
import { listShortcodes, testShortcode } from "~/.server/domains/payments";
import { PAYMENTS_MESSAGES } from "~/lib/schemas/payments";
import * as paymentsPage from "~/routes/app/settings/payments";
import { createVerifiedUser, META, signedInCookie, uniqueEmail } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";
import { appFetch } from "../support/in-process-app";
import { paymentsHarnessForFile } from "../support/payments-harness";
import { detailsInWords } from "~/.server/domains/activity/words";
import { inLocale } from "~/.server/infrastructure/http/display-zone";

// Issue 76, Settings → Payments (decision 136): an organisation's own M-Pesa shortcodes, their
// credentials sealed and never shown again, and "Test connection" against the Daraja sandbox.

const pay = paymentsHarnessForFile();
const PATH = "/settings/payments";

/** A till the sandbox knows, with its own Daraja app. */
const TILL = {
  label: "Duka till",
  kind: "till",
  shortcode: "7100101",
  tillNumber: "5100101",
  consumerKey: "duka-till-consumer-key-AB12",
  consumerSecret: "duka-till-consumer-secret-s3cr3t",
  passkey: "duka-till-passkey-0000000000000001",
} as const;

/** The add form's fields for the till (or `over` changed). */
const tillForm = (over: Record<string, string> = {}) => ({
  intent: "add",
  label: TILL.label,
  kind: "till",
  businessShortCode: TILL.shortcode,
  tillNumber: TILL.tillNumber,
  consumerKey: TILL.consumerKey,
  consumerSecret: TILL.consumerSecret,
  passkey: TILL.passkey,
  environment: "sandbox",
  ...over,
});

const SECRETS = [TILL.consumerKey, TILL.consumerSecret, TILL.passkey];
let logged = "";

beforeEach(() => {
  // The harness's own sandbox is where sandbox shortcodes are reached (server.ts does so with its port).
  setEnv({ ...env(), mpesaShortcodeBaseUrls: { sandbox: `${pay.origin}/sandbox/mpesa`, production: "http://127.0.0.1:9/unreachable" } });
  pay.mpesa.addShortcode(TILL);
  logged = "";
  captureLogs(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged += chunk.toString("utf8");
        done();
      },
    }),
    "debug",
  );
});
afterEach(() => captureLogs(undefined));

async function owner() {
  const account = await createVerifiedUser({ businessName: "Duka la Mama" });
  const cookie = await signedInCookie(account.email, account.password);
  return {
    ...account,
    organizationId: account.organization.id,
    cookie,
    actor: { user: account.user, organization: account.organization, role: "owner" as const },
  };
}

async function member(organizationId: string, role: "admin" | "agent" | "viewer") {
  const email = uniqueEmail(role);
  const password = "Member#Pass2026";
  await rawQuery(
    `insert into users (organization_id, email, first_name, last_name, password_hash, is_verified, org_role)
     values ($1, $2, 'Achieng', 'Otieno', $3, true, $4)`,
    [organizationId, email, await hashPassword(password), role],
  );
  return { cookie: await signedInCookie(email, password) };
}

const post = (cookie: string, fields: Record<string, string>, path = PATH) =>
  run(paymentsPage.action, formRequest(path, fields, { cookie }));
const page = async (cookie: string, path = PATH) => {
  const response = await appFetch(new Request(`${pay.origin}${path}`, { headers: { cookie } }));
  return { status: response.status, html: await response.text() };
};
const loaderData = (cookie: string, path = PATH) => run(paymentsPage.loader, getRequest(path, { cookie }));
const rows = (organizationId: string) =>
  rawQuery<Record<string, unknown>>(`select * from mpesa_shortcodes where organization_id = $1 order by created_at`, [organizationId]);
const activity = async (organizationId: string) =>
  (
    await rawQuery<{ action: string; details: string }>(`select action, details from activity_logs where organization_id = $1`, [
      organizationId,
    ])
  )
    .map((r) => `${r.action} ${r.details}`)
    .join("\n");
/** The toast the redirect carries (its cookie's value is base64 JSON, signed). */
function toastOf(outcome: { setCookies?: string[] }) {
  const value = /jumbe_toast=([^;]+)/.exec((outcome.setCookies ?? []).join(";"))?.[1] ?? "";
  return Buffer.from(decodeURIComponent(value).split(".")[0]!, "base64").toString("utf8");
}

function expectNoSecrets(text: string) {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe("Settings → Payments", () => {
  it("an owner connects a till: the first is the default, secrets sealed and never shown, logged without them", async () => {
    const t = await owner();
    const added = await post(t.cookie, tillForm());
    expect(added.status).toBe(302);
    expect(added.location).toBe(PATH);
    const [row] = await rows(t.organizationId);
    expect(row).toMatchObject({ label: "Duka till", kind: "till", business_short_code: TILL.shortcode, till_number: TILL.tillNumber });
    expect(row).toMatchObject({ is_default: true, status: "untested", consumer_key_hint: "AB12" });
    expect(String(row!.callback_token)).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expectNoSecrets(JSON.stringify(row));
    const shown = await page(t.cookie);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain("Duka till");
    expect(shown.html).toContain("AB12");
    expectNoSecrets(shown.html);
    expectNoSecrets(JSON.stringify((await loaderData(t.cookie)).data));
    const log = await activity(t.organizationId);
    expect(log).toContain("M-Pesa shortcode added Duka till (till 5100101, store 7100101, sandbox)");
    expectNoSecrets(log);
    expectNoSecrets(logged);
  });

  it("says what is wrong with each field, and never sends the credentials back", async () => {
    const t = await owner();
    const refused = await post(t.cookie, tillForm({ label: " ", tillNumber: "", businessShortCode: "12", consumerSecret: "" }));
    expect(refused.status).toBe(400);
    const errors = JSON.stringify(refused.data);
    expect(errors).toContain(PAYMENTS_MESSAGES.labelRequired);
    expect(errors).toContain(PAYMENTS_MESSAGES.shortcode);
    expect(errors).toContain(PAYMENTS_MESSAGES.secretRequired);
    expectNoSecrets(errors);
    const tillWithout = await post(t.cookie, tillForm({ tillNumber: "" }));
    expect(JSON.stringify(tillWithout.data)).toContain(PAYMENTS_MESSAGES.tillRequired);
    const paybillWithTill = await post(t.cookie, tillForm({ kind: "paybill" }));
    expect(JSON.stringify(paybillWithTill.data)).toContain(PAYMENTS_MESSAGES.tillForPaybill);
    expect(await rows(t.organizationId)).toHaveLength(0);
    // The same number twice in one environment: said at the number.
    await post(t.cookie, tillForm());
    const twice = await post(t.cookie, tillForm({ label: "Again" }));
    expect(twice.status).toBe(409);
    expect(JSON.stringify(twice.data)).toContain("already connected");
  });

  it("changes the name and credentials (an empty field keeps the stored one), makes another the default, removes after a confirmation", async () => {
    const t = await owner();
    await post(t.cookie, tillForm());
    await post(t.cookie, tillForm({ label: "Branch paybill", kind: "paybill", tillNumber: "", businessShortCode: "600222" }));
    const [till, paybill] = await rows(t.organizationId);
    expect(paybill).toMatchObject({ is_default: false });

    const renamed = await post(t.cookie, {
      intent: "edit",
      shortcode: String(till!.id),
      label: "Main till",
      consumerKey: "",
      consumerSecret: "",
      passkey: "",
    });
    expect(renamed.status).toBe(302);
    const [after] = await rows(t.organizationId);
    expect(after).toMatchObject({
      label: "Main till",
      consumer_secret_sealed: till!.consumer_secret_sealed,
      passkey_sealed: till!.passkey_sealed,
    });
    await post(t.cookie, {
      intent: "edit",
      shortcode: String(till!.id),
      label: "Main till",
      consumerKey: "",
      consumerSecret: "new-secret-value",
      passkey: "",
    });
    const [rekeyed] = await rows(t.organizationId);
    expect(rekeyed!.consumer_secret_sealed).not.toBe(till!.consumer_secret_sealed);
    expect(rekeyed!.passkey_sealed).toBe(till!.passkey_sealed);

    expect((await post(t.cookie, { intent: "default", shortcode: String(paybill!.id) })).status).toBe(302);
    expect((await rows(t.organizationId)).map((r) => r.is_default)).toEqual([false, true]);

    const unconfirmed = await post(t.cookie, { intent: "remove", shortcode: String(paybill!.id) });
    expect(unconfirmed.status).toBe(400);
    expect(await rows(t.organizationId)).toHaveLength(2);
    const confirm = await page(t.cookie, `${PATH}?confirm=remove&shortcode=${String(paybill!.id)}`);
    expect(confirm.html).toContain("Remove Branch paybill?");
    expect((await post(t.cookie, { intent: "remove", shortcode: String(paybill!.id), confirm: "yes" })).status).toBe(302);
    // The default removed: the one left becomes the default.
    expect((await rows(t.organizationId)).map((r) => [r.label, r.is_default])).toEqual([["Main till", true]]);
    const log = await activity(t.organizationId);
    for (const action of ["changed", "made default", "removed"]) expect(log).toContain(`M-Pesa shortcode ${action}`);
    expect(log).not.toContain("new-secret-value");
    // Each line's details are said again in its reader's language.
    expect(log).toContain("M-Pesa shortcode changed Main till (till 5100101, store 7100101, sandbox): consumer secret changed");
    expect(inLocale("sw", () => detailsInWords("Main till (till 5100101, store 7100101, sandbox): consumer secret changed"))).toBe(
      "Main till (till 5100101, duka 7100101, sandbox): consumer secret imebadilishwa",
    );
    expect(inLocale("fr", () => detailsInWords("Main till (till 5100101, store 7100101, sandbox): working"))).toBe(
      "Main till (till 5100101, magasin 7100101, sandbox) : fonctionne",
    );
  });

  it("another organisation's shortcode is not found (404) and stays as it was", async () => {
    const t = await owner();
    const other = await owner();
    await post(other.cookie, tillForm());
    const [foreign] = await rows(other.organizationId);
    const id = String(foreign!.id);
    const forms: Record<string, string>[] = [
      { intent: "test", shortcode: id },
      { intent: "default", shortcode: id },
      { intent: "remove", shortcode: id, confirm: "yes" },
      { intent: "edit", shortcode: id, label: "Mine now" },
      { intent: "test", shortcode: "not-a-uuid" },
    ];
    for (const fields of forms) expect((await post(t.cookie, fields)).status).toBe(404);
    expect(await rows(other.organizationId)).toMatchObject([{ label: "Duka till", status: "untested" }]);
    expect((await loaderData(t.cookie, `${PATH}?edit=${id}`)).data).toMatchObject({ editing: null, shortcodes: [] });
  });

  it("an agent sees the shortcodes but changes nothing (403); a viewer does not open the page", async () => {
    const t = await owner();
    await post(t.cookie, tillForm());
    const [row] = await rows(t.organizationId);
    const agent = await member(t.organizationId, "agent");
    const shown = await page(agent.cookie);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain("Duka till");
    expect(shown.html).toContain("Only the owner and admins");
    expect(shown.html).not.toContain('value="test"');
    const forms: Record<string, string>[] = [
      tillForm({ businessShortCode: "7100999", tillNumber: "5100999" }),
      { intent: "test", shortcode: String(row!.id) },
      { intent: "remove", shortcode: String(row!.id), confirm: "yes" },
      { intent: "edit", shortcode: String(row!.id), label: "Agent's" },
    ];
    for (const fields of forms) expect((await post(agent.cookie, fields)).status).toBe(403);
    expect(await rows(t.organizationId)).toMatchObject([{ label: "Duka till", status: "untested" }]);
    const viewer = await member(t.organizationId, "viewer");
    const refused = await page(viewer.cookie);
    expect(refused.status).not.toBe(200);
    expect(refused.html).not.toContain("Duka till");
    const admin = await member(t.organizationId, "admin");
    expect((await post(admin.cookie, { intent: "test", shortcode: String(row!.id) })).status).toBe(302);
  });
});

describe("Test connection", () => {
  async function connected(over: Record<string, string> = {}) {
    const t = await owner();
    await post(t.cookie, tillForm(over));
    const [row] = await rows(t.organizationId);
    return { t, id: String(row!.id) };
  }

  it("a till set up right works: stored as working, with when", async () => {
    const { t, id } = await connected();
    const tested = await post(t.cookie, { intent: "test", shortcode: id });
    expect(tested.status).toBe(302);
    expect(toastOf(tested)).toContain("Duka till works");
    expect((await rows(t.organizationId))[0]).toMatchObject({ status: "working", status_detail: null });
    expect((await rows(t.organizationId))[0]!.tested_at).toBeTruthy();
    expect(await activity(t.organizationId)).toContain("M-Pesa shortcode tested Duka till (till 5100101, store 7100101, sandbox): working");
    expectNoSecrets(logged);
  });

  it.each([
    ["a wrong consumer secret", { consumerSecret: "not-the-secret" }, "did not accept the consumer key and secret"],
    ["a wrong passkey", { passkey: "not-the-passkey-at-all" }, "did not accept the passkey"],
    ["a till entered as a paybill", { kind: "paybill", tillNumber: "" }, "refused a payment to it as a paybill"],
    ["a wrong till number", { tillNumber: "5100999" }, "refused a payment to it as a till"],
  ])("%s is said in its own words", async (_name, over, words) => {
    const { t, id } = await connected(over);
    const result = await testShortcode(t.actor, id, META);
    expect(result).toMatchObject({ working: false, reason: expect.stringContaining(words) });
    const [row] = await rows(t.organizationId);
    expect(row).toMatchObject({ status: "failing", status_detail: expect.stringContaining(words) });
    const shown = await page(t.cookie);
    expect(shown.html).toContain(words);
    expectNoSecrets(shown.html);
    expect(await activity(t.organizationId)).toContain(words);
    expectNoSecrets(logged);
  });

  it("Safaricom unreachable is said so", async () => {
    const { t, id } = await connected({ environment: "production" });
    const result = await testShortcode(t.actor, id, META);
    expect(result.reason).toContain("could not be reached");
    expect((await listShortcodes(t.organizationId))[0]).toMatchObject({ status: "failing" });
  });
});
