import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { startBankTransfer } from "~/.server/domains/billing/bank";
import { APP } from "../support/http";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";

// Issue 40, the console's forms as a browser without JavaScript meets them (a document post, the
// page the answer renders): a refused step-up keeps everything typed but the password, and a second
// reconcile of the same transfer says so on the page instead of a bare 409.

async function admin() {
  const account = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

const stale = (userId: string) => rawQuery(`update sessions set confirmed_at = now() - interval '11 minutes' where user_id = $1`, [userId]);
const today = () => new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10);

/** A form posted as a browser without JavaScript posts it: the answer is the page it renders. */
async function post(path: string, cookie: string, fields: Record<string, string>) {
  const response = await appFetch(
    new Request(`${APP}${path}`, {
      method: "POST",
      headers: {
        cookie,
        origin: APP,
        accept: "text/html",
        "sec-fetch-mode": "navigate",
        "content-type": "application/x-www-form-urlencoded",
        "user-agent": "vitest",
      },
      body: new URLSearchParams(fields),
    }),
  );
  return { status: response.status, html: await response.text() };
}

/** The text of the control named `name` (a textarea's content or an input's value), as rendered. */
function renderedValue(html: string, name: string): string | null {
  const textarea = new RegExp(`<textarea[^>]*name="${name}"[^>]*>([\\s\\S]*?)</textarea>`).exec(html);
  if (textarea) return textarea[1]!;
  const input = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0];
  if (!input) return null;
  return /value="([^"]*)"/.exec(input)?.[1] ?? "";
}

const PASSWORD_LABEL = "Your password or authenticator code";

describe("a refused step-up without JavaScript", () => {
  it("keeps the suspension's reason, asking only for the password", async () => {
    const a = await admin();
    const t = await createVerifiedUser({ businessName: "Amani Traders" });
    await stale(a.user.id);
    const reason = "Reported for spam by many customers";
    const page = await post(`/admin/users/${t.organization.id}?dialog=suspend`, a.cookie, { intent: "suspend", reason });
    expect(page.status).toBe(400);
    expect(page.html).toContain(PASSWORD_LABEL);
    expect(renderedValue(page.html, "reason")).toBe(reason);
    expect(renderedValue(page.html, "confirmation")).toBe("");
    // A wrong password: the reason stays, the password typed does not come back.
    const wrong = await post(`/admin/users/${t.organization.id}?dialog=suspend`, a.cookie, {
      intent: "suspend",
      reason,
      confirmation: "not my password",
    });
    expect(wrong.status).toBe(400);
    expect(renderedValue(wrong.html, "reason")).toBe(reason);
    expect(wrong.html).not.toContain("not my password");
    expect((await rawQuery<{ status: string }>(`select status from organizations where id = $1`, [t.organization.id]))[0]!.status).toBe(
      "active",
    );
  });

  it("keeps a reconcile's reference, date and notes, a wallet adjustment's amount and reason, and a disconnection's reason", async () => {
    const a = await admin();
    const t = await createVerifiedUser({ businessName: "Baraka Matatu Sacco" });
    const { invoiceId } = await startBankTransfer({ organizationId: t.organization.id, userId: t.user.id }, { amount: "2500" });
    await stale(a.user.id);

    const reconcile = await post(`/admin/billing/invoices/${invoiceId}?dialog=reconcile`, a.cookie, {
      intent: "reconcile",
      reference: "NCBA-FT-26328-777",
      paymentDate: today(),
      note: "Seen on the NCBA statement of today.",
    });
    expect(reconcile.status).toBe(400);
    expect(reconcile.html).toContain(PASSWORD_LABEL);
    expect(renderedValue(reconcile.html, "reference")).toBe("NCBA-FT-26328-777");
    expect(renderedValue(reconcile.html, "paymentDate")).toBe(today());
    expect(renderedValue(reconcile.html, "note")).toBe("Seen on the NCBA statement of today.");

    const adjust = await post(`/admin/billing/wallets/${t.organization.id}`, a.cookie, {
      intent: "adjust",
      direction: "debit",
      amount: "150.50",
      reason: "Reverse a duplicate credit",
    });
    expect(adjust.status).toBe(400);
    expect(adjust.html).toContain(PASSWORD_LABEL);
    expect(renderedValue(adjust.html, "amount")).toBe("150.50");
    expect(renderedValue(adjust.html, "reason")).toBe("Reverse a duplicate credit");
    expect(adjust.html).toMatch(/<input[^>]*value="debit"[^>]*checked|<input[^>]*checked[^>]*value="debit"/);

    const { account } = await connectedNumber(t.organization.id, {
      wabaId: "750001",
      phoneNumberId: "850001",
      display: "+254 700 500 100",
    });
    const disconnect = await post(`/admin/whatsapp/${account.id}`, a.cookie, { intent: "disconnect", reason: "The owner asked us to" });
    expect(disconnect.status).toBe(400);
    expect(disconnect.html).toContain(PASSWORD_LABEL);
    const disconnectReason = /<textarea[^>]*id="disconnect-reason"[^>]*>([\s\S]*?)<\/textarea>/.exec(disconnect.html)?.[1];
    expect(disconnectReason).toBe("The owner asked us to");
  });
});

describe("a second reconcile of the same transfer", () => {
  it("says on the page that it was already reconciled, and credits nothing more", async () => {
    const a = await admin();
    const t = await createVerifiedUser({ businessName: "Tausi Salon" });
    const { invoiceId } = await startBankTransfer({ organizationId: t.organization.id, userId: t.user.id }, { amount: "4000" });
    const fields = { intent: "reconcile", reference: "EQ-FT-1", paymentDate: today(), note: "" };
    const first = await post(`/admin/billing/invoices/${invoiceId}?dialog=reconcile`, a.cookie, fields);
    expect(first.status).toBe(302);
    // The same form submitted again (a second tab, the back button, another administrator).
    const second = await post(`/admin/billing/invoices/${invoiceId}?dialog=reconcile`, a.cookie, fields);
    expect(second.status).toBe(409);
    expect(second.html).toMatch(/role="alert"[^>]*>(INV|RCT)-\d{4}-\d{6} is already reconciled: the wallet was credited once\.</);
    const [wallet] = await rawQuery<{ balance_cents: string }>(`select balance_cents from wallets where organization_id = $1`, [
      t.organization.id,
    ]);
    expect(Number(wallet!.balance_cents)).toBe(400_000);
  });
});

describe("a refused Edit User without JavaScript", () => {
  it("says why on the page and keeps what was typed", async () => {
    const a = await admin();
    const t = await createVerifiedUser({ businessName: "Zawadi Crafts" });
    const other = await createVerifiedUser({ businessName: "Baraka Foods" });
    const page = await post(`/admin/users/${t.organization.id}?dialog=edit`, a.cookie, {
      intent: "edit",
      plan: "Growth",
      limitOverride: "25,000",
      overrideReason: "Seasonal campaign",
      status: "active",
      firstName: "Wanjiku",
      lastName: "Kamau",
      email: other.email,
      phone: "",
    });
    expect(page.status).toBe(409);
    expect(page.html).toContain("Another account already uses this e-mail address.");
    expect(renderedValue(page.html, "limitOverride")).toBe("25,000");
    expect(renderedValue(page.html, "overrideReason")).toBe("Seasonal campaign");
    expect(renderedValue(page.html, "firstName")).toBe("Wanjiku");
    expect(renderedValue(page.html, "email")).toBe(other.email);
  });
});
