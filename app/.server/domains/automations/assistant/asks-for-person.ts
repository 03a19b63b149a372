import { normaliseMessage } from "../match";

/**
 * Whether a customer's message asks for a person, in English, Swahili, Sheng or French: checked
 * before any model call, so "mtu" always reaches a person, whatever the model or its endpoint does.
 * Whole words after `normalise` (case, accents, punctuation), never parts: "mtumiaji" and
 * "personal" are not asks.
 */
const WORDS = new Set([
  "agent",
  "agents",
  "human",
  "humans",
  "person",
  "representative",
  "operator",
  "mtu",
  "binadamu",
  "mhudumu",
  "msee",
  "humain",
  "conseiller",
]);

const PHRASES = [
  "customer care",
  "customer service",
  "customer support",
  "real person",
  "talk to someone",
  "speak to someone",
  "talk to somebody",
  "speak to somebody",
  "nataka kuongea na mtu",
  "niongee na mtu",
  "nataka mtu",
  "naomba mtu",
  "mtu halisi",
  "huduma kwa wateja",
  "service client",
  "parler a quelqu un",
  "une vraie personne",
].map((phrase) => ` ${phrase} `);

export function asksForPerson(message: string): boolean {
  const normalised = normaliseMessage(message);
  if (normalised.words.some((word) => WORDS.has(word))) return true;
  return PHRASES.some((phrase) => normalised.padded.includes(phrase));
}
