import { eq } from "drizzle-orm";
import { db } from "../infrastructure/db/client";
import { mpesaShortcodes, organizations } from "../infrastructure/db/schema";
import { encryptSecret, randomToken } from "../infrastructure/security/crypto";
import { DEMO_TILLS } from "@jumbe/sandbox/mpesa/demo-tills";

/**
 * The demo tenants' own tills (Settings → Payments, issue 76): the demo Sacco's and Mama Mboga's,
 * with the credentials the sandbox of sandbox mode knows (sandbox/mpesa/demo-tills.ts), sealed as a
 * real one is, each its organisation's default, tested and working.
 */
export async function seedPaymentShortcodes(now = Date.now()) {
  for (const till of DEMO_TILLS) {
    const [organization] = await db()
      .select({ id: organizations.id })
      .from(organizations)
      .where(eq(organizations.name, till.organization))
      .limit(1);
    if (!organization) continue;
    await db()
      .insert(mpesaShortcodes)
      .values({
        organizationId: organization.id,
        label: till.label,
        kind: "till",
        businessShortCode: till.shortcode,
        tillNumber: till.tillNumber,
        environment: "sandbox",
        consumerKeySealed: encryptSecret(till.consumerKey),
        consumerKeyHint: till.consumerKey.slice(-4),
        consumerSecretSealed: encryptSecret(till.consumerSecret),
        passkeySealed: encryptSecret(till.passkey),
        callbackToken: randomToken(32),
        isDefault: true,
        status: "working",
        testedAt: new Date(now - 2 * 3_600_000),
      })
      .onConflictDoNothing();
  }
}
