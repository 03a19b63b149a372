import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { normaliseRecipient } from "~/.server/domains/messaging/recipient";
import * as keyApi from "~/routes/api/developer.api-key";
import { action as profileAction, loader as profileLoader } from "~/routes/app/profile";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";
import { startApiV1Server } from "../support/api-v1-server";

// Issue 41: one phone module (app/lib/phone.ts) with one metadata set. A number a member may save
// on their profile is a number a message may go to and a contact may hold, and the other way round.

let apiServer: Awaited<ReturnType<typeof startApiV1Server>>;

beforeAll(async () => {
  apiServer = await startApiV1Server();
});

afterAll(async () => {
  await apiServer.close();
});

beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: apiServer.base }));
});

/** Typed as people type them; null where every place must refuse the number. */
const NUMBERS: [string, string | null][] = [
  ["0712 345 678", "+254712345678"], // Safaricom 07xx
  ["0110 123 456", "+254110123456"], // Safaricom 011x
  ["0100 123 456", "+254100123456"], // Airtel 010x
  ["0733-123-456", "+254733123456"], // Airtel 07xx
  ["254712345678", "+254712345678"],
  ["+254 (0)712 345 678", "+254712345678"],
  ["00254 712 345 678", "+254712345678"],
  ["+44 7911 123456", "+447911123456"],
  ["0109 123 456", null], // a 01xx block not allocated: refused by the metadata everywhere
  ["0812 345 678", null],
  ["071234567", null],
  ["12", null],
  ["call me", null],
];

/** What the profile stores for the number, or null when the form refuses it. */
async function asProfilePhone(cookie: string, email: string, typed: string) {
  const saved = await run(
    profileAction,
    formRequest("/profile", { intent: "save", businessName: "Duka la Mama Njeri", email, phoneNumber: typed }, { cookie }),
  );
  if (saved.status !== 302) {
    expect(saved.data.result.error.phoneNumber, typed).toEqual(["Please enter a valid phone number"]);
    return null;
  }
  const page = await run(profileLoader, getRequest("/profile", { cookie }));
  return page.data.profile.phoneNumber as string;
}

/** The number the contacts API stores, or null when it answers 422 invalid_phone_number. */
async function asContactPhone(key: string, typed: string) {
  const response = await fetch(`${apiServer.base}/api/v1/contacts`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Njeri", phone: typed }),
  });
  const body = await response.json();
  if (response.status === 422) {
    expect(body.code, typed).toBe("invalid_phone_number");
    return null;
  }
  expect(response.status, typed).toBeLessThan(300);
  return body.phone as string;
}

/** The number a message goes to, or null when sending refuses it. */
function asRecipient(typed: string) {
  try {
    return normaliseRecipient(typed);
  } catch (error) {
    expect((error as { code?: string }).code, typed).toBe("invalid_phone_number");
    return null;
  }
}

describe("one phone rule", () => {
  it("accepts and refuses the same numbers on a profile, as a recipient and as a contact, all as one E.164", async () => {
    const account = await createVerifiedUser({ businessName: "Duka la Mama Njeri" });
    const cookie = await signedInCookie(account.email, account.password);
    const key = (await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }))).data.key as string;
    for (const [typed, expected] of NUMBERS) {
      const seen = {
        profile: await asProfilePhone(cookie, account.email, typed),
        recipient: asRecipient(typed),
        contact: await asContactPhone(key, typed),
      };
      expect(seen, typed).toEqual({ profile: expected, recipient: expected, contact: expected });
    }
  });
});
