import { createHash } from "node:crypto";
import type { SandboxShortcodeInput } from "./shortcodes";

/**
 * The demo tenants' own tills (issue 76), known to both sides as the demo WhatsApp connection is
 * (sandbox/meta/business-demo.ts): Jumbe's demo seed stores each organisation's till with these
 * credentials (sealed), and the sandbox of sandbox mode is started with the same tills, so "Test
 * connection" on them answers "working" without either side reading the other's state. Public on
 * purpose, as Safaricom's sandbox passkey is: they open nothing but the local sandbox.
 */
export interface DemoTill extends SandboxShortcodeInput {
  /** The demo organisation (by name) whose till it is. */
  organization: string;
  label: string;
  kind: "till";
  tillNumber: string;
}

const derived = (what: string) => createHash("sha256").update(`jumbe-mpesa-sandbox:demo-till:${what}`).digest("hex");

function demoTill(organization: string, label: string, store: string, till: string): DemoTill {
  return {
    organization,
    label,
    kind: "till",
    shortcode: store,
    tillNumber: till,
    consumerKey: derived(`${till}:key`).slice(0, 48),
    consumerSecret: derived(`${till}:secret`).slice(0, 32),
    passkey: derived(`${till}:passkey`),
  };
}

export const DEMO_TILLS: readonly DemoTill[] = [
  demoTill("Nyota Savings Sacco", "Sacco office till", "7300451", "5300451"),
  demoTill("Mama Mboga Fresh Produce", "Market stall till", "7300452", "5300452"),
];

/** The demo tills as the sandbox's `shortcodes` option takes them. */
export const demoTillShortcodes = (): SandboxShortcodeInput[] =>
  DEMO_TILLS.map(({ organization: _organization, ...shortcode }) => shortcode);
