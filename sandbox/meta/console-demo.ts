import { createHash } from "node:crypto";
import { stableNumericId } from "./util";

/**
 * The admin console's demo WhatsApp accounts, known to both sides: Jumbe's demo seed
 * (app/.server/demo/seed-admin-whatsapp.ts) stores them as five tenants' connected accounts, and a
 * sandbox started with `consoleDemo` (sandbox mode's, beside the demo seed) knows their businesses,
 * WABAs and numbers with the same quality and tier. Ids and tokens are derived from the app id,
 * like the demo business's (stableNumericId), so both sides find the same ones without sharing
 * state. The sandbox accepts the tokens of every account but the "refused" one: Test Connection
 * on a healthy one answers with the WABA's name, on Pwani Tours with Meta's 190.
 */

export type ConsoleDemoState = "connected" | "reconnect" | "refused" | "disconnected";
export type ConsoleDemoQuality = "GREEN" | "YELLOW" | "RED" | "UNKNOWN";

export interface ConsoleDemoAccount {
  /** Names this account in its derived ids and token. */
  key: string;
  business: string;
  owner: { firstName: string; lastName: string; email: string };
  plan: string;
  numbers: { display: string; name: string; quality: ConsoleDemoQuality; limit: string }[];
  connectedDaysAgo: number;
  state: ConsoleDemoState;
  /** Messages sent and received per day this month. */
  perDay: [number, number];
}

export const CONSOLE_DEMO_ACCOUNTS: ConsoleDemoAccount[] = [
  {
    key: "mama-mboga",
    business: "Mama Mboga Fresh Ltd",
    owner: { firstName: "Njeri", lastName: "Mwangi", email: "njeri@mamamboga.demo" },
    plan: "Growth",
    numbers: [{ display: "+254 712 345 678", name: "Mama Mboga Fresh", quality: "GREEN", limit: "TIER_1K" }],
    connectedDaysAgo: 94,
    state: "connected",
    perDay: [420, 180],
  },
  {
    key: "umoja-mfb",
    business: "Umoja Microfinance Bank",
    owner: { firstName: "Kevin", lastName: "Ochieng", email: "kevin.ochieng@umoja-mfb.demo" },
    plan: "Enterprise",
    numbers: [
      { display: "+254 709 880 100", name: "Umoja MFB", quality: "GREEN", limit: "TIER_100K" },
      { display: "+254 709 880 200", name: "Umoja MFB Loans", quality: "GREEN", limit: "TIER_10K" },
    ],
    connectedDaysAgo: 210,
    state: "connected",
    perDay: [5200, 1400],
  },
  {
    key: "kilimo-bora",
    business: "Kilimo Bora Agrovet",
    owner: { firstName: "Wafula", lastName: "Simiyu", email: "wafula@kilimobora.demo" },
    plan: "Starter",
    numbers: [{ display: "+254 723 456 789", name: "Kilimo Bora", quality: "YELLOW", limit: "TIER_250" }],
    connectedDaysAgo: 41,
    state: "reconnect",
    perDay: [60, 35],
  },
  {
    key: "pwani-tours",
    business: "Pwani Tours & Safaris",
    owner: { firstName: "Aisha", lastName: "Mohamed", email: "aisha@pwanitours.demo" },
    plan: "Growth",
    numbers: [{ display: "+254 741 222 333", name: "Pwani Tours", quality: "GREEN", limit: "TIER_1K" }],
    connectedDaysAgo: 130,
    state: "refused",
    perDay: [90, 70],
  },
  {
    key: "nairobi-smile",
    business: "Nairobi Smile Dental Clinic",
    owner: { firstName: "Faith", lastName: "Kendi", email: "faith.kendi@nairobismile.demo" },
    plan: "Starter",
    numbers: [{ display: "+254 733 909 090", name: "Nairobi Smile", quality: "UNKNOWN", limit: "TIER_250" }],
    connectedDaysAgo: 300,
    state: "disconnected",
    perDay: [0, 0],
  },
];

/**
 * The console's other demo tenants' WhatsApp accounts (Jumbe's seed-admin-users.ts makes the
 * organisations and connects these to them): one number each, so every message the demo counts
 * this month was sent from a number of an account the WhatsApp tab lists, as in production.
 */
const tenant = (key: string, business: string, display: string, quality: ConsoleDemoQuality, limit: string, daysAgo: number) => ({
  key,
  business,
  owner: { firstName: "", lastName: "", email: "" },
  plan: "",
  numbers: [{ display, name: business, quality, limit }],
  connectedDaysAgo: daysAgo,
  state: "connected" as const,
  perDay: [0, 0] as [number, number],
});

export const CONSOLE_DEMO_TENANT_ACCOUNTS: ConsoleDemoAccount[] = [
  tenant("mama-mboga-produce", "Mama Mboga Fresh Produce", "+254 711 620 001", "GREEN", "TIER_250", 320),
  tenant("rift-valley-agro", "Rift Valley Agro Supplies", "+254 722 620 002", "GREEN", "TIER_1K", 290),
  tenant("pwani-logistics", "Pwani Logistics Ltd", "+254 733 620 003", "GREEN", "TIER_10K", 260),
  tenant("jua-kali-hardware", "Jua Kali Hardware", "+254 744 620 004", "GREEN", "TIER_250", 230),
  tenant("nairobi-dental", "Nairobi Dental Clinic", "+254 755 620 005", "GREEN", "TIER_1K", 200),
  tenant("savannah-safaris", "Savannah Safaris", "+254 766 620 006", "GREEN", "TIER_1K", 140),
  tenant("kisumu-fish", "Kisumu Fish Traders", "+254 777 620 007", "GREEN", "TIER_250", 110),
  tenant("eldoret-dairy", "Eldoret Dairy Co-operative", "+254 788 620 008", "GREEN", "TIER_10K", 80),
  tenant("mombasa-spice", "Mombasa Spice House", "+254 799 620 009", "GREEN", "TIER_250", 50),
  tenant("thika-road-motors", "Thika Road Motors", "+254 710 620 010", "GREEN", "TIER_1K", 20),
  tenant("quick-loans", "Quick Loans Express", "+254 720 620 011", "RED", "TIER_250", 170),
];

/** Every console demo account the sandbox knows: the WhatsApp tab's five and the other tenants'. */
export const CONSOLE_DEMO_WABAS: ConsoleDemoAccount[] = [...CONSOLE_DEMO_ACCOUNTS, ...CONSOLE_DEMO_TENANT_ACCOUNTS];

/** An account's ids at Meta, derived from the app id. */
export function consoleDemoIds(appId: string, account: ConsoleDemoAccount) {
  const id = (what: string) => stableNumericId(`${appId}:console-demo:${account.key}:${what}`);
  return {
    businessId: id("business"),
    wabaId: id("waba"),
    phoneNumberIds: account.numbers.map((_, i) => id(`phone-${i}`)),
  };
}

/** The account's business token (shaped like Meta's "EAA…"), derived from the app id. */
export function consoleDemoToken(appId: string, account: ConsoleDemoAccount) {
  const digest = createHash("sha256").update(`jumbe-meta-sandbox:${appId}:console-demo:${account.key}:token`).digest("base64url");
  return `EAAG${digest}`;
}

/** Whether the sandbox accepts the account's token: all but the one whose token Meta refused. */
export const consoleDemoTokenAccepted = (account: ConsoleDemoAccount) => account.state !== "refused";
