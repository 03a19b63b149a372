import { expect } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { action as partnersAction } from "~/routes/app/revenue-share/partners";
import { createVerifiedUser, signedInCookie } from "./accounts";
import { formRequest, run } from "./http";

/** The revenue-share pages' tests (issue 46): accounts with a session, the partner form, a form POST. */

export async function signedIn(options: Parameters<typeof createVerifiedUser>[0] = {}) {
  const account = await createVerifiedUser(options);
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

/** A platform administrator, signed in. */
export const admin = () => signedIn({ usertype: "admin", businessName: "Jumbe Platform" });

/** The Partners tab's enrol form, filled as an administrator would (an M-Pesa payout, resident). */
export const PARTNER = {
  name: "Savannah Digital Agency",
  category: "Agency",
  share: "15",
  shareOther: "",
  reason: "",
  payoutMethod: "mpesa",
  mpesaPhone: "0712 345 678",
  bank: "",
  bankBranch: "",
  accountName: "",
  accountNumber: "",
  kraPin: "a123456789z",
  resident: "on",
  code: "",
};

/** A form posted to a route's action as the browser would without JavaScript. */
export const post = (handler: Parameters<typeof run>[0], path: string, fields: Record<string, string>, cookie: string) =>
  run(handler, formRequest(path, fields, { cookie }));

/** The sentence a refused form shows at `field`. */
export const errorAt = (outcome: { data: unknown }, field: string) =>
  (outcome.data as { result?: { error?: Record<string, string[]> } }).result?.error?.[field]?.[0];

/** An organisation enrolled as a partner by the administrator `a`, through the Partners tab's form. */
export async function enrolled(
  a: Awaited<ReturnType<typeof admin>>,
  name = "Savannah Digital Agency",
  fields: Partial<typeof PARTNER> = {},
) {
  const owner = await signedIn({ businessName: name });
  const done = await post(
    partnersAction,
    "/revenue-share/partners?dialog=enrol",
    { intent: "enrol", organization: owner.email, ...PARTNER, name, ...fields },
    a.cookie,
  );
  expect(done.status, JSON.stringify(done.data)).toBe(302);
  const [partner] = await rawQuery<{
    id: string;
    status: string;
    share_bps: number;
    code: string;
    mpesa_phone: string | null;
    kra_pin: string;
  }>(`select id, status, share_bps, code, mpesa_phone, kra_pin from partners where organization_id = $1`, [owner.organization.id]);
  return { owner, partner: partner! };
}
