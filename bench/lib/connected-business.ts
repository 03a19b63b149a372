// A bench's business: an organisation, its owner, a connected WhatsApp account and one number,
// written straight in SQL (no sign-up, no Embedded Signup: what a bench measures comes after).
import { randomBytes } from "node:crypto";
import { rawQuery } from "../../app/.server/infrastructure/db/client";
import { encryptSecret } from "../../app/.server/infrastructure/security/crypto";
import { newBusinessId } from "../../app/.server/domains/auth/signup";

export async function connectedBusiness(name: string, ids: { wabaId: string; phoneNumberId: string; digits: string }) {
  const [org] = await rawQuery<{ id: string }>(`insert into organizations (name, business_id) values ($1, $2) returning id`, [
    name,
    newBusinessId(),
  ]);
  const organizationId = org!.id;
  const [user] = await rawQuery<{ id: string }>(
    `insert into users (organization_id, email, first_name, last_name, password_hash, is_verified) values ($1, $2, 'Bench', 'Owner', 'x', true) returning id`,
    [organizationId, `bench.${randomBytes(4).toString("hex")}@example.co.ke`],
  );
  const [account] = await rawQuery<{ id: string }>(
    `insert into whatsapp_accounts (organization_id, waba_id, access_token_encrypted, subscribed) values ($1, $2, $3, true) returning id`,
    [organizationId, ids.wabaId, encryptSecret("EAA-bench-token")],
  );
  await rawQuery(
    `insert into whatsapp_phone_numbers (organization_id, account_id, phone_number_id, display_phone_number, phone_digits, verified_name,
                                         quality_rating, status, platform_type, registered_at)
     values ($1, $2, $3, '+' || $4, $4, $5, 'GREEN', 'CONNECTED', 'CLOUD_API', now())`,
    [organizationId, account!.id, ids.phoneNumberId, ids.digits, name],
  );
  return { organizationId, userId: user!.id, accountId: account!.id };
}
