import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { inLocale } from "../../infrastructure/http/display-zone";
import { detailsInWords } from "./words";

// Issue 43 (decision 074): an activity record's details built from inputs are written from a
// message (`englishOf(words(...))`) that the log reads back in its reader's language. A template
// literal with English words around its inputs would show English to a Swahili or French reader:
// the writers' sources are read here so that one cannot ship. Literals of inputs and punctuation
// alone ("${a} → ${b}", "${url} (${events})") are data and pass.

const ROOTS = ["app/.server", "app/routes"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

/** The template literals of `details:` properties, up to the next property or the object's end. */
function detailLiterals(text: string): string[] {
  const found: string[] = [];
  for (const [, expression] of text.matchAll(/^\s*details:([\s\S]*?)(?=,\s*\n\s*\w+\s*[:,]|\n\s*[})\]])/gm))
    for (const [, literal] of expression!.matchAll(/`([^`]*)`/g)) found.push(literal!);
  return found;
}

/**
 * Literals that stay: each read back by a pattern of words.ts (shown with a stored example, which
 * must be said otherwise in Swahili), or not an activity record's details at all (null).
 */
const KNOWN: Record<string, string | null> = {
  "WhatsApp Business Account ${account.waba_id}: ${event}": "WhatsApp Business Account 42: PARTNER_ADDED",
  "WhatsApp Business Account ${account.wabaId}. Reason: ${reason}": "WhatsApp Business Account 42. Reason: Fraud report",
  '${ended.length} session${ended.length === 1 ? "" : "s"} ended': "3 sessions ended",
  "Sign-up for ${email}": "Sign-up for wanjiku@nyota.co.ke",
  "Key ${row.prefix}...": "Key jmb_live_ab12...",
  "Key ${revoked}... revoked; new key ${created.prefix}...": "Key jmb_live_ab12... revoked; new key jmb_live_cd34...",
  "New key ${created.prefix}...": "New key jmb_live_cd34...",
  "WhatsApp Business Account ${account.waba_id}: ${outcome.imported} imported, ${outcome.updated} updated, ${outcome.removed} removed${gone.length ? ":
    "WhatsApp Business Account 42: 3 imported, 1 updated, 0 removed",
  "Delivery ${queued.id}": "Delivery 42",
  "WhatsApp Business Account ${account.wabaId}": "WhatsApp Business Account 42",
  'WhatsApp Business Account ${input.wabaId} with ${chosen.map((n) => e164(n.displayPhoneNumber)).join(", ")}':
    "WhatsApp Business Account 42 with +254700000001",
  // A message's failure record (messages.error_details), not the activity log's.
  "Not sent: the organisation was suspended, and the message waited more than ${SUSPENSION_HOLD_HOURS} hours.": null,
  // Meta's event for a template when it is none of those held for (a fallback): Meta's words and the name.
  "${because}. Jumbe now reviews new templates before they go to Meta.": null,
  // The template's name and Meta's reason: data.
  "${name}${reason ? ": null,
};

/** English words outside the `${…}` parts: two letters or more. */
const hasWords = (literal: string) => /[A-Za-z]{2,}/.test(literal.replace(/\$\{[^}]*\}/g, ""));

const written = ROOTS.flatMap(sourceFiles)
  .map((file) => ({ file, text: readFileSync(file, "utf8") }))
  .filter(({ text }) => /recordActivity\(|insert into activity_logs|GuardActivity|activity\.push\(/.test(text));

describe("activity details written from inputs", () => {
  it("finds details in the sources (the scan itself works)", () => {
    expect(written.flatMap(({ text }) => detailLiterals(text)).length).toBeGreaterThan(10);
  });

  it("writes no English around its inputs: a message says it", () => {
    const english = written.flatMap(({ file, text }) =>
      detailLiterals(text)
        .filter((literal) => hasWords(literal) && !Object.hasOwn(KNOWN, literal))
        .map((literal) => `${file}: ${literal}`),
    );
    expect(english).toEqual([]);
  });

  it("has the words.ts patterns it counts on for the literals that stay", () => {
    for (const example of Object.values(KNOWN)) {
      if (example === null) continue;
      expect(detailsInWords(example), example).toBe(example);
      expect(
        inLocale("sw", () => detailsInWords(example)),
        example,
      ).not.toBe(example);
    }
  });
});
