import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRow } from "../../infrastructure/db/query";
import { m } from "~/paraglide/messages";
import { normaliseMessage } from "./match";

/**
 * Whether a customer's message is only a greeting ("Habari", "Hi there", "Bonjour madame", "Mambo
 * vipi", "Good morning"), in English, Swahili, Sheng or French: a short message whose every word
 * greets, is a courtesy or names who is greeted, with no question in it. A greeting is not a
 * question the knowledge base must answer (decision 113): the welcome message answers it, or the
 * assistant greets back; it never hands the conversation over.
 *
 * Answers the greeting's language (the first greeting word's), or null when the message is more
 * than a greeting.
 */
export function greetingOf(message: string): "en" | "sw" | "fr" | null {
  if (message.includes("?") || message.length > MAX_GREETING_CHARS) return null;
  const { words } = normaliseMessage(message);
  if (!words.length || words.length > MAX_GREETING_WORDS) return null;
  let language: "en" | "sw" | "fr" | null = null;
  for (const word of words) {
    const greets = GREETINGS.get(word);
    if (greets) language ??= greets;
    else if (!COURTESIES.has(word)) return null;
  }
  return language;
}

export const isGreeting = (message: string) => greetingOf(message) !== null;

const MAX_GREETING_CHARS = 60;
const MAX_GREETING_WORDS = 6;

const words = (language: "en" | "sw" | "fr", list: string) => list.split(" ").map((word) => [word, language] as const);

/** Words that greet, with their language. */
const GREETINGS = new Map<string, "en" | "sw" | "fr">([
  ...words("sw", "habari jambo hujambo hamjambo sijambo mambo sasa niaje vipi shikamoo salama karibu salaam salam hodi"),
  ...words("en", "hello hallo hi hey hiya howdy greetings morning afternoon evening"),
  ...words("fr", "bonjour bonsoir salut coucou allo"),
]);

/** Words that may stand beside a greeting without making it a question. */
const COURTESIES = new Set(
  // Swahili and Sheng: "habari yako", "habari za asubuhi", "mambo poa", "sasa boss".
  (
    "yako zako yenu za ya gani leo asubuhi mchana jioni usiku poa fiti freshi safi nzuri njema mzuri sana tu " +
    "ndugu dada kaka mama baba boss bro rafiki wote nyote " +
    // English: "good morning", "hi there", "hello team", "hey guys".
    "good there all everyone team guys folks sir madam maam friend friends dear " +
    // French: "bonjour madame", "salut à tous", "bonne journée".
    "bon bonne journee soiree madame monsieur a tous toutes vous le la les equipe " +
    // Thanks and smiles may close a greeting.
    "asante thanks thank you merci"
  ).split(" "),
);

/**
 * The assistant's reply to a greeting when no welcome message greets: a greeting back with the
 * business's name, in the greeting's language ("Habari", "Bonjour"), or the customer's own for a
 * greeting said in every language ("Hi", "Hello"). No model call, no hand-over.
 */
export async function greetingReply(organizationId: string, greeting: "en" | "sw" | "fr", customerLocale: string): Promise<string> {
  const row = await queryRow<{ name: string }>(db(), sql`select name from organizations where id = ${organizationId}`);
  const locale = greeting !== "en" ? greeting : customerLocale === "sw" || customerLocale === "fr" ? customerLocale : "en";
  return m.automations_greeting_reply({ business: row?.name ?? "" }, { locale });
}
