import { describe, expect, it } from "vitest";
import { randomInt } from "node:crypto";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { action as signupAction, loader as signupLoader } from "~/routes/auth/signup";
import { action as apiSignup } from "~/routes/api/auth.signup";
import { attributeReferral } from "~/.server/domains/partners/referral";
import { formRequest, getRequest, jsonRequest, run } from "../support/http";
import { createVerifiedUser, uniqueEmail } from "../support/accounts";

// Issue 46: a sign-up from a partner's referral link (`/signup?ref=CODE`) ends with its new
// organisation attributed to that partner, once; a code naming no active partner is ignored and the
// sign-up goes through all the same.

const ip = () => `203.0.113.${randomInt(1, 254)}`;

const form = (email: string) => ({
  firstName: "Achieng",
  lastName: "Otieno",
  businessName: "Kisumu Fresh Fish",
  email,
  password: "Karibu#2026",
  confirmPassword: "Karibu#2026",
  agreedToTerms: "on",
});

let codes = 0;
async function partner(status: "active" | "pending" | "suspended" = "active") {
  const owner = await createVerifiedUser({ businessName: "Digital Duka Agency" });
  const code = `REF${Date.now().toString(36).toUpperCase()}${++codes}`;
  const [row] = await rawQuery<{ id: string }>(
    `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin)
     values ($1, $2, 'Digital Duka Agency', 'Agency', $3, 1500, 'mpesa', '254712345678', 'P051234567Q') returning id`,
    [owner.organization.id, code, status],
  );
  return { id: row!.id, code, organizationId: owner.organization.id };
}

async function signUpByForm(ref: string | null) {
  const email = uniqueEmail("referred");
  const address = ip();
  const page = await run(signupLoader, getRequest(ref === null ? "/signup" : `/signup?ref=${encodeURIComponent(ref)}`), { ip: address });
  const h = page.data.honeypot;
  // The page's hidden field, as a browser posts it back with or without scripts.
  const fields: Record<string, string> = { ...form(email), [h.nameFieldName]: "", [h.validFromFieldName]: h.encryptedValidFrom };
  if (page.data.referral) fields.ref = page.data.referral;
  const res = await run(signupAction, formRequest("/signup", fields), { ip: address });
  expect(res.status).toBe(200);
  return { email, page: page.data as { referral: string | null } };
}

const attributionsOf = (email: string) =>
  rawQuery<{ partner_id: string; source: string; ended_at: Date | null }>(
    `select a.partner_id, a.source, a.ended_at from partner_attributions a
     join users u on u.organization_id = a.organization_id where lower(u.email) = lower($1)`,
    [email],
  );

describe("referral attribution at sign-up", () => {
  it("carries ?ref=CODE in the page's hidden field and attributes the new organisation to the active partner (any case)", async () => {
    const p = await partner();
    const { email, page } = await signUpByForm(p.code.toLowerCase());
    expect(page.referral).toBe(p.code);
    expect(await attributionsOf(email)).toEqual([{ partner_id: p.id, source: "referral", ended_at: null }]);
  });

  it("attributes a sign-up through the JSON API with its ref", async () => {
    const p = await partner();
    const email = uniqueEmail("api-referred");
    const res = await run(apiSignup, jsonRequest("/api/auth/signup", { ...form(email), agreedToTerms: true, ref: p.code }), { ip: ip() });
    expect(res.status).toBe(201);
    expect(await attributionsOf(email)).toEqual([{ partner_id: p.id, source: "referral", ended_at: null }]);
  });

  it("ignores an unknown, pending, suspended or malformed code: the sign-up goes through unattributed", async () => {
    const pending = await partner("pending");
    const suspended = await partner("suspended");
    for (const ref of ["NOSUCHCODE", pending.code, suspended.code, "<script>", "x".repeat(200), ""]) {
      const { email } = await signUpByForm(ref);
      const [user] = await rawQuery<{ id: string }>(`select id from users where lower(email) = lower($1)`, [email]);
      expect(user, ref).toBeDefined();
      expect(await attributionsOf(email), ref).toEqual([]);
    }
    const res = await run(
      apiSignup,
      jsonRequest("/api/auth/signup", { ...form(uniqueEmail("api")), agreedToTerms: true, ref: suspended.code }),
      { ip: ip() },
    );
    expect(res.status).toBe(201);
  });

  it("attributes an organisation at most once, and never a partner to itself", async () => {
    const first = await partner();
    const second = await partner();
    const { email } = await signUpByForm(first.code);
    const [user] = await rawQuery<{ organization_id: string }>(`select organization_id from users where lower(email) = lower($1)`, [email]);
    expect(await attributeReferral(db(), user!.organization_id, second.code)).toBe(false);
    expect(await attributeReferral(db(), user!.organization_id, first.code)).toBe(false);
    expect((await attributionsOf(email)).map((a) => a.partner_id)).toEqual([first.id]);
    // An ended attribution is history: a referral link does not bring the organisation back either.
    await rawQuery(`update partner_attributions set ended_at = now() where organization_id = $1`, [user!.organization_id]);
    expect(await attributeReferral(db(), user!.organization_id, second.code)).toBe(false);

    expect(await attributeReferral(db(), first.organizationId, first.code)).toBe(false);
    const [own] = await rawQuery<{ n: number }>(`select count(*)::int as n from partner_attributions where organization_id = $1`, [
      first.organizationId,
    ]);
    expect(own!.n).toBe(0);
  });

  it("a page without a ref has no hidden field's value", async () => {
    const { email, page } = await signUpByForm(null);
    expect(page.referral).toBeNull();
    expect(await attributionsOf(email)).toEqual([]);
  });
});
