import { storedSentences, type StoredSentence } from "../../infrastructure/words/stored";

/**
 * The activity details Jumbe writes from inputs (a name, a count, an amount, a role), as the
 * messages that write them: a writer stores `englishOf(words(key, inputs))`, and the log says the
 * details again in its reader's language (decision 074). The kinds of the inputs say how each is
 * read back from the English (infrastructure/words/stored.ts). Listed here, not beside each writer:
 * the activity domain reads them, and the writers' domains import it, not the other way round.
 * More particular sentences first: the first whose inputs all read back wins.
 */

/** Roles as the team pages name them. */
export const ROLES = ["validation_role_owner", "validation_role_admin", "validation_role_agent", "validation_role_viewer"] as const;

// Accounts, team, profile, developers, webhooks, organisation, contacts, WhatsApp, the public API.
const PEOPLE_AND_SETTINGS: StoredSentence[] = [];

// Billing, campaigns, templates, the console's actions, sending.
const MONEY_AND_SENDING: StoredSentence[] = [];

export const STORED_DETAILS = storedSentences([...PEOPLE_AND_SETTINGS, ...MONEY_AND_SENDING]);
