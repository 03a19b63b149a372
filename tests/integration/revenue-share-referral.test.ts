import { describe, expect, it } from "vitest";
import { randomInt } from "node:crypto";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { action as signupAction, loader as signupLoader } from "~/routes/auth/signup";
import { action as apiSignup } from "~/routes/api/auth.signup";
import { attributeReferral } from "~/.server/domains/revenue-share/referral";
import { organisationDomain } from "~/.server/domains/revenue-share/self-referral";
import { updateOrganisationDetails } from "~/.server/domains/organisation/details";
import { countAdminActions } from "~/.server/domains/admin/audit";
import { loader as indexLoader, action as indexAction } from "~/routes/app/revenue-share/index";
import type { Organization } from "~/.server/infrastructure/db/schema";
import { formRequest, getRequest, jsonRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie, uniqueEmail } from "../support/accounts";
import { admin, post } from "../support/revenue-share";

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
async function partner(status: "active" | "pending" | "suspended" = "active", email?: string) {
  // The agency's own domain: a sign-up from another domain is no self-referral (decision 104).
  const owner = await createVerifiedUser({
    businessName: "Digital Duka Agency",
    email: email ?? `owner${++codes}-${Date.now()}@digitalduka-agency.co.ke`,
  });
  const code = `REF${Date.now().toString(36).toUpperCase()}${++codes}`;
  const [row] = await rawQuery<{ id: string }>(
    `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin)
     values ($1, $2, 'Digital Duka Agency', 'Agency', $3, 1500, 'mpesa', '254712345678', 'P051234567Q') returning id`,
    [owner.organization.id, code, status],
  );
  return { id: row!.id, code, organizationId: owner.organization.id, owner };
}

async function signUpByForm(ref: string | null, extra: { email?: string; phoneNumber?: string } = {}) {
  const email = extra.email ?? uniqueEmail("referred");
  const address = ip();
  const page = await run(signupLoader, getRequest(ref === null ? "/signup" : `/signup?ref=${encodeURIComponent(ref)}`), { ip: address });
  const h = page.data.honeypot;
  // The page's hidden field, as a browser posts it back with or without scripts.
  const fields: Record<string, string> = { ...form(email), [h.nameFieldName]: "", [h.validFromFieldName]: h.encryptedValidFrom };
  if (extra.phoneNumber) fields.phoneNumber = extra.phoneNumber;
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

// Issue 72 (decision 104): a referral that shares a phone, an e-mail domain (not a public webmail
// one) or a KRA PIN with its partner earns nothing until a platform administrator approves it, and
// then only from the approval; the partner sees that a referral is under review, not whose it is.
const reviewsOf = (email: string) =>
  rawQuery<{ id: string; partner_id: string; status: string; matches: unknown; decision_reason: string | null }>(
    `select r.id, r.partner_id, r.status, r.matches, r.decision_reason from partner_referral_reviews r
     join users u on u.organization_id = r.organization_id where lower(u.email) = lower($1) order by r.created_at`,
    [email],
  );

describe("self-referral", () => {
  it("holds a sign-up with the partner owner's phone for review; approval attributes it from then, once", async () => {
    const p = await partner();
    await rawQuery(`update users set phone_number = '+254722000111' where id = $1`, [p.owner.user.id]);
    const { email } = await signUpByForm(p.code, { phoneNumber: "0722 000 111" });
    expect(await attributionsOf(email)).toEqual([]);
    const [review] = await reviewsOf(email);
    expect(review).toMatchObject({ partner_id: p.id, status: "pending", matches: [{ field: "phone", value: "+254722000111" }] });

    // The partner: one referral under review, and nothing that says whose it is.
    const ownerCookie = await signedInCookie(p.owner.email, p.owner.password);
    const own = await run(indexLoader, getRequest("/revenue-share", { cookie: ownerCookie }));
    expect(own.data.own.underReview).toHaveLength(1);
    expect(JSON.stringify(own.data)).not.toMatch(/Kisumu Fresh Fish|referred\d/);
    expect(own.data.own.clients).toEqual([]);
    // The partner cannot decide its own referral.
    const refused = await post(indexAction, "/revenue-share", { intent: "approve-referral", review: review!.id }, ownerCookie);
    expect(refused.location).toBe("/unauthorized");

    // The administrator: who, through whom, what matched.
    const a = await admin();
    const page = await run(indexLoader, getRequest("/revenue-share", { cookie: a.cookie }));
    expect(page.data.reviews.find((r: { id: string }) => r.id === review!.id)).toMatchObject({
      partnerName: "Digital Duka Agency",
      organizationName: "Kisumu Fresh Fish",
      ownerEmail: email,
      matches: [{ field: "phone", value: "+254722000111" }],
    });

    const approved = await post(indexAction, "/revenue-share", { intent: "approve-referral", review: review!.id, reason: "" }, a.cookie);
    expect(approved.status).toBe(302);
    expect(approved.location).toBe("/revenue-share");
    const [attribution] = await rawQuery<{ partner_id: string; source: string; created_by: string; from_approval: boolean }>(
      `select a.partner_id, a.source, a.created_by, a.started_at >= r.decided_at as from_approval
       from partner_attributions a join partner_referral_reviews r on r.organization_id = a.organization_id where r.id = $1`,
      [review!.id],
    );
    expect(attribution).toEqual({ partner_id: p.id, source: "referral", created_by: a.user.id, from_approval: true });
    expect((await reviewsOf(email))[0]!.status).toBe("approved");
    expect(await countAdminActions("partner.referral_approve", review!.id)).toBe(1);
    // Decided once: a second click is refused, nothing added.
    const again = await post(indexAction, "/revenue-share", { intent: "approve-referral", review: review!.id }, a.cookie);
    expect(again.status).toBe(409);
    expect(await attributionsOf(email)).toHaveLength(1);
    expect((await run(indexLoader, getRequest("/revenue-share", { cookie: ownerCookie }))).data.own.underReview).toEqual([]);
  });

  it("rejects with a reason, attributing nothing; a review needs the reason and a real id", async () => {
    const p = await partner();
    const { email } = await signUpByForm(p.code, { email: `finance-${Date.now()}@DigitalDuka-Agency.co.ke` });
    const [review] = await reviewsOf(email);
    expect(review!.matches).toEqual([{ field: "email_domain", value: "digitalduka-agency.co.ke" }]);
    const a = await admin();
    const bare = await post(indexAction, "/revenue-share", { intent: "reject-referral", review: review!.id, reason: " " }, a.cookie);
    expect(bare.status).toBe(422);
    expect((await reviewsOf(email))[0]!.status).toBe("pending");
    const unknown = await post(indexAction, "/revenue-share", { intent: "reject-referral", review: "nope", reason: "x" }, a.cookie);
    expect(unknown.status).toBe(404);
    const done = await post(
      indexAction,
      "/revenue-share",
      { intent: "reject-referral", review: review!.id, reason: "The agency's own branch" },
      a.cookie,
    );
    expect(done.status).toBe(302);
    expect((await reviewsOf(email))[0]).toMatchObject({ status: "rejected", decision_reason: "The agency's own branch" });
    expect(await attributionsOf(email)).toEqual([]);
    expect(await countAdminActions("partner.referral_reject", review!.id)).toBe(1);
  });

  it("does not count a public webmail domain as shared, and still attributes an ordinary referral at once (JSON API too)", async () => {
    expect(organisationDomain("Someone@Gmail.com")).toBeNull();
    expect(organisationDomain("a@outlook.com")).toBeNull();
    expect(organisationDomain("a@yahoo.com")).toBeNull();
    expect(organisationDomain("a@agency.co.ke")).toBe("agency.co.ke");
    const p = await partner("active", `digitalduka${Date.now()}@gmail.com`);
    const { email } = await signUpByForm(p.code, { email: `kisumu${Date.now()}@gmail.com`, phoneNumber: "0733 444 555" });
    expect(await attributionsOf(email)).toEqual([{ partner_id: p.id, source: "referral", ended_at: null }]);
    expect(await reviewsOf(email)).toEqual([]);

    // The partner's M-Pesa number counts as its phone, through the JSON API as through the form.
    const viaApi = uniqueEmail("api-self");
    const res = await run(
      apiSignup,
      jsonRequest("/api/auth/signup", { ...form(viaApi), phoneNumber: "+254 712 345 678", agreedToTerms: true, ref: p.code }),
      { ip: ip() },
    );
    expect(res.status).toBe(201);
    expect(await attributionsOf(viaApi)).toEqual([]);
    expect((await reviewsOf(viaApi))[0]!.matches).toEqual([{ field: "phone", value: "+254712345678" }]);
  });

  it("ends a referral's attribution and holds it for review when the client sets the partner's KRA PIN", async () => {
    const p = await partner();
    const { email } = await signUpByForm(p.code);
    expect(await attributionsOf(email)).toHaveLength(1);
    const [member] = await rawQuery<{ id: string; organization_id: string }>(
      `select id, organization_id from users where lower(email) = lower($1)`,
      [email],
    );
    const [organization] = await rawQuery<Record<string, unknown>>(`select * from organizations where id = $1`, [member!.organization_id]);
    const actor = {
      user: { id: member!.id },
      role: "owner" as const,
      organization: {
        ...organization,
        name: "Kisumu Fresh Fish",
        kraPin: null,
        postalAddress: null,
        county: null,
        industry: null,
        timeZone: "Africa/Nairobi",
        defaultLocale: "en",
      } as unknown as Organization,
    };
    const details = {
      name: "Kisumu Fresh Fish",
      kraPin: "P051234567Q",
      postalAddress: "",
      county: "",
      industry: "",
      timeZone: "Africa/Nairobi",
    };
    await updateOrganisationDetails(actor, details as Parameters<typeof updateOrganisationDetails>[1]);
    expect(await attributionsOf(email)).toMatchObject([{ partner_id: p.id, source: "referral", ended_at: expect.any(Date) }]);
    expect((await reviewsOf(email))[0]).toMatchObject({ status: "pending", matches: [{ field: "kra_pin", value: "P051234567Q" }] });

    // Another PIN on another referred organisation changes nothing.
    const other = await signUpByForm(p.code);
    const [otherMember] = await rawQuery<{ id: string; organization_id: string }>(
      `select id, organization_id from users where lower(email) = lower($1)`,
      [other.email],
    );
    await updateOrganisationDetails(
      {
        ...actor,
        user: { id: otherMember!.id },
        organization: { ...actor.organization, id: otherMember!.organization_id } as Organization,
      },
      { ...details, kraPin: "A000000001B" } as Parameters<typeof updateOrganisationDetails>[1],
    );
    expect(await attributionsOf(other.email)).toEqual([{ partner_id: p.id, source: "referral", ended_at: null }]);
    expect(await reviewsOf(other.email)).toEqual([]);
  });
});
