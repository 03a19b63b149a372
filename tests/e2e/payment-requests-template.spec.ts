import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { test, expect } from "./fixtures";
import { DEMO, signIn } from "./helpers";
import { ownServer, type OwnServer } from "./own-server";

// Issue 76, decision 140: a member asks a customer who last wrote 25 hours ago to pay. Outside the
// window the request goes as the demo Sacco's approved payment template (demo data), its quick
// replies carrying the request's button ids; the customer taps Pay (the Meta sandbox's control API,
// as WhatsApp posts a template's quick reply: type "button" with its payload), approves on the
// M-Pesa sandbox's phone page, and the thread's card shows the receipt; JavaScript on and off.

let server: OwnServer;
let phoneNumberId = "";
/** Two demo conversations whose customer last wrote 25 hours ago (one for each project). */
let quiet: { id: string; phone: string }[] = [];

test.beforeAll(async () => {
  test.setTimeout(240_000);
  server = await ownServer("payment-requests-template");
  await server.prepare();
  const db = await PGlite.create(path.join(server.dataDir, "pglite"));
  try {
    const demo = await db.query<{ phone_number_id: string; organization_id: string }>(
      `select n.phone_number_id, n.organization_id from users u join whatsapp_phone_numbers n on n.organization_id = u.organization_id
       where u.email = $1 limit 1`,
      [DEMO.email],
    );
    phoneNumberId = demo.rows[0]!.phone_number_id;
    const conversations = await db.query<{ id: string; phone: string }>(
      `select v.id, c.phone from conversations v join contacts c on c.id = v.contact_id
       where v.organization_id = $1 and c.phone like '+2547%' and c.opt_in <> 'opted_out' order by v.created_at limit 2`,
      [demo.rows[0]!.organization_id],
    );
    quiet = conversations.rows;
    await db.query(`update conversations set last_inbound_at = now() - interval '25 hours' where id = any($1::uuid[])`, [
      quiet.map((q) => q.id),
    ]);
  } finally {
    await db.close();
  }
  await server.start();
});

test.afterAll(async () => {
  await server?.dispose();
});

test("outside the 24-hour window a payment request goes as the payment template, and its quick reply pays", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.slow();
  const context = await browser.newContext({ baseURL: server.base, javaScriptEnabled });
  const page = await context.newPage();
  const request = context.request;
  const conversation = quiet[javaScriptEnabled ? 0 : 1]!;
  const from = conversation.phone.replace(/^\+/, "");
  await signIn(page, DEMO.email, DEMO.password, { base: server.base, to: `${server.base}/settings/payments` });
  // The demo's payment template, approved in each language.
  await expect(page.getByTestId("payment-template")).toContainText("Approved");

  await page.goto(`${server.base}/chat/${conversation.id}`);
  await page.getByText("Request payment").click();
  await page.getByLabel("Amount (KES)").fill("700");
  await page.getByLabel("What it is for").fill("Order 77");
  await page.getByRole("button", { name: "Send payment request" }).click();
  await expect(page.getByTestId("payment-request-card").first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("payment-request-card").first()).toContainText("KES 700");

  // The template at Meta, its first quick reply's payload; the customer taps it.
  let tap: { wamid: string; payload: string } | undefined;
  type Sent = {
    wamid: string;
    to: string;
    body: { template?: { name: string; components: { type: string; sub_type?: string; parameters: { payload?: string }[] }[] } };
  };
  await expect
    .poll(
      async () => {
        const messages = (await (
          await request.get(`${server.base}/sandbox/meta/control/messages?phoneNumberId=${phoneNumberId}`)
        ).json()) as { messages: Sent[] };
        const sent = messages.messages.find((m) => m.to.replace(/^\+/, "") === from && m.body.template?.name === "jumbe_payment_request");
        const button = sent?.body.template!.components.find((c) => c.sub_type === "quick_reply");
        tap = sent && button ? { wamid: sent.wamid, payload: button.parameters[0]!.payload! } : undefined;
        return !!tap;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  expect(tap!.payload).toMatch(/^payreq:[0-9a-f-]{36}:pay$/);
  const tapped = await request.post(`${server.base}/sandbox/meta/control/inbound`, {
    data: { phoneNumberId, from, type: "button", contextId: tap!.wamid, payload: tap!.payload, text: "Pay with M-Pesa" },
  });
  expect(tapped.status(), await tapped.text()).toBe(200);

  const phone = await context.newPage();
  await expect
    .poll(
      async () => {
        await phone.goto(`${server.base}/sandbox/mpesa/phone?phone=${from}`);
        return phone.getByLabel(/PIN/).count();
      },
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  await phone.getByLabel(/PIN/).first().fill("1234");
  await phone
    .getByRole("button", { name: /pay|send|ok/i })
    .first()
    .click();

  await expect
    .poll(
      async () => {
        await page.goto(`${server.base}/chat/${conversation.id}`);
        return (await page.getByTestId("payment-request-card").first().textContent()) ?? "";
      },
      { timeout: 30_000 },
    )
    .toMatch(/Paid.*receipt [A-Z0-9]{10}/);
  await context.close();
});
