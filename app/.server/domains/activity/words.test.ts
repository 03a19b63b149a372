import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { actionInWords, activityInWords, activityKeyOf, detailsInWords, STORED_ACTIONS } from "./words";

// Issue 43: the activity log's stored English said in the reader's language. A writer that stores
// an action the table does not know would show English to a Swahili or French reader: the sources
// are read here so that a new action cannot ship without its words.

const ROOTS = ["app/.server", "app/routes"];
/** An administrator's audit code ("template.approve"): admin_audit_log's, not the activity log's. */
const AUDIT_CODE = /^[a-z_]+\.[a-z_]+$/;
const KIND = /broadcast|kindLabel|\blabel\(|\bwhat\b/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

/** A file that writes activity records: through recordActivity, the table itself, or rows handed to a writer. */
const writesActivity = (text: string) =>
  /recordActivity\(|activityLogs|insert into activity_logs|GuardActivity|activity\.push\(/.test(text);

const quoted = (text: string) => [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!);

interface Written {
  file: string;
  /** An action as stored, exactly. */
  exact: string[];
  /** A template literal's shape, its `${…}` parts as wildcards: one stored action at least must fit. */
  shapes: string[];
}

/** What one file stores as actions, as far as its source says. */
function actionsWritten(file: string, text: string): Written {
  const exact: string[] = [];
  const shapes: string[] = [];
  const template = (literal: string) => {
    shapes.push(literal);
    // "${kind} paused", "${label(row)} ${verb}": the campaign's and the broadcast's sentences both.
    const kind = /^\$\{([^}]*)\}(.*)$/.exec(literal);
    if (!kind || !KIND.test(kind[1]!)) return;
    const rest = kind[2]!;
    const verbs = rest.includes("${") ? quoted(/\$\{([^}]*)\}/.exec(rest)![1]!).map((verb) => ` ${verb}`) : [rest];
    for (const verb of verbs) exact.push(`Campaign${verb}`, `Broadcast${verb}`);
  };
  // `action: <expression>` up to the next property or the end of the object.
  for (const [, expression] of text.matchAll(/\baction:([\s\S]*?)(?=,\s*\w+\s*:|\n\s*(?:\w+\s*[:,]|[})\]]))/g)) {
    const templates = [...expression!.matchAll(/`([^`]*)`/g)].map((match) => match[1]!);
    templates.forEach(template);
    // Left out: the conditions' operands (`kind === "draft" ? …`) and calls' arguments (`text("action")`).
    const choices = expression!
      .replace(/`[^`]*`/g, "")
      .replace(/[!=]==\s*"[^"]*"|"[^"]*"\s*[!=]==/g, "")
      .replace(/\(\s*"[^"]*"|"[^"]*"\s*\)/g, "");
    exact.push(...quoted(choices).filter((literal) => !AUDIT_CODE.test(literal)));
  }
  // The domains' own helpers: logTemplate(actor, status, action, …), note(actor, action, …), record(actor, action, …).
  for (const [, action] of text.matchAll(/\b(?:logTemplate|note|record)\(\s*actor,\s*(?:"(?:success|error)",\s*)?"([^"]+)"/g))
    exact.push(action!);
  // recordCampaignEvent(actor, row, "paused"): "Campaign paused" and "Broadcast paused".
  for (const [, verb] of text.matchAll(/recordCampaignEvent\([^;]*?"(\w+)"/g)) exact.push(`Campaign ${verb}`, `Broadcast ${verb}`);
  // The demo's rows written in SQL.
  for (const [, action] of text.matchAll(/'(?:success|warning|error)', '([^']+)'/g)) exact.push(action!);
  return { file, exact, shapes };
}

const written = ROOTS.flatMap(sourceFiles)
  .map((file) => ({ file, text: readFileSync(file, "utf8") }))
  .filter(({ text }) => writesActivity(text))
  .map(({ file, text }) => actionsWritten(file, text));

const shapeOf = (literal: string) =>
  new RegExp(
    `^${literal
      .split(/\$\{[^}]*\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&"))
      .join(".+")}$`,
  );

const catalogue = (locale: string) =>
  JSON.parse(readFileSync(path.resolve(`app/messages/app/${locale}.json`), "utf8")) as Record<string, string>;
const words = { en: catalogue("en"), sw: catalogue("sw"), fr: catalogue("fr") };

describe("the activity log's words", () => {
  it("finds the writers in the sources (the scan itself works)", () => {
    const all = written.flatMap((w) => w.exact);
    expect(written.length).toBeGreaterThan(40);
    expect(new Set(all).size).toBeGreaterThan(100);
    for (const action of [
      "Signed in",
      "Template submitted to Meta",
      "Saved answer added",
      "Campaign paused",
      "Broadcast declined",
      "Payment received",
    ])
      expect(all, action).toContain(action);
  });

  it("has words for every action a writer stores", () => {
    const missing = written.flatMap(({ file, exact }) =>
      exact.filter((action) => !STORED_ACTIONS.includes(action)).map((a) => `${file}: ${a}`),
    );
    expect(missing).toEqual([]);
    const unfit = written.flatMap(({ file, shapes }) =>
      shapes.filter((shape) => !STORED_ACTIONS.some((action) => shapeOf(shape).test(action))).map((s) => `${file}: ${s}`),
    );
    expect(unfit).toEqual([]);
  });

  it("keeps English exactly as stored, and says each action in Swahili and French as the catalogue does", () => {
    for (const action of STORED_ACTIONS) {
      const key = activityKeyOf(action)!;
      expect(key, action).toMatch(/^app_activity_action_/);
      expect(words.en[key], key).toBe(action);
      expect(actionInWords(action)).toBe(action);
      expect(
        inLocale("sw", () => actionInWords(action)),
        key,
      ).toBe(words.sw[key]);
      expect(
        inLocale("fr", () => actionInWords(action)),
        key,
      ).toBe(words.fr[key]);
      expect(words.sw[key], key).not.toBe(action);
    }
    expect(inLocale("sw", () => actionInWords("Signed in"))).toBe("Kuingia kumefanikiwa");
    expect(inLocale("fr", () => actionInWords("Webhook endpoint disabled"))).toBe("Point de terminaison du webhook désactivé");
  });

  it("says Jumbe's fixed details and patterns, keeping names, addresses and numbers as written", () => {
    expect(detailsInWords("Browser session")).toBe("Browser session");
    expect(inLocale("sw", () => detailsInWords("Browser session"))).toBe(words.sw.app_activity_detail_browser_session);
    expect(inLocale("fr", () => detailsInWords("Wrong password"))).toBe("Mot de passe incorrect");
    const patterns = [
      "Sign-up for wanjiku@nyota.co.ke",
      "1 session ended",
      "3 sessions ended",
      "Key jmb_live_ab12...",
      "New key jmb_live_cd34...",
      "Key jmb_live_ab12... revoked; new key jmb_live_cd34...",
      "WhatsApp Business Account 318000000000101",
      "Delivery 42",
      "1 contact deleted.",
      "12 contacts deleted.",
      "Nakuru members, as scheduled.",
      "Nakuru members: sending now.",
      "Nakuru members: scheduled for its time.",
      "loan_repayment_reminder was approved",
    ];
    for (const text of patterns) {
      expect(detailsInWords(text), text).toBe(text);
      expect(
        inLocale("sw", () => detailsInWords(text)),
        text,
      ).not.toBe(text);
      expect(
        inLocale("fr", () => detailsInWords(text)),
        text,
      ).not.toBe(text);
    }
    expect(inLocale("sw", () => detailsInWords("Sign-up for wanjiku@nyota.co.ke"))).toBe("Usajili wa wanjiku@nyota.co.ke");
    expect(inLocale("fr", () => detailsInWords("3 sessions ended"))).toBe("3 sessions fermées");
    expect(inLocale("sw", () => detailsInWords("1 contact deleted."))).toBe("Anwani 1 imefutwa.");
  });

  it("says a change of who is e-mailed about events, every part in the reader's words, or leaves it as stored", () => {
    const stored = "Campaign finished: Owner, Admin to Owner, Agent; Number quality drop: Owner to nobody";
    expect(inLocale("en", () => detailsInWords(stored))).toBe(stored);
    const swahili = inLocale("sw", () => detailsInWords(stored));
    expect(swahili).not.toContain("Campaign finished");
    expect(swahili).toContain(" hadi ");
    expect(swahili).toContain("hakuna");
    expect(inLocale("fr", () => detailsInWords(stored))).toContain(" → ");
    // A part that is not Jumbe's words keeps the whole line as stored.
    expect(inLocale("sw", () => detailsInWords("Campaign finished: Owner to Wanjiru"))).toBe("Campaign finished: Owner to Wanjiru");
  });

  it("says a WhatsApp account's details in the reader's words, keeping Meta's event names, numbers and people's reasons", () => {
    const stored = [
      "WhatsApp Business Account 4257481994522844: PARTNER_ADDED",
      "WhatsApp Business Account 4257481994522844 with +254786536856, +254700000001",
      "WhatsApp Business Account 42: 3 imported, 1 updated, 0 removed",
      "WhatsApp Business Account 42: 3 imported, 1 updated, 2 removed (deleted at Meta: promo_old, hello)",
      "WhatsApp Business Account 42. Reason: Fraud report from Safaricom",
    ];
    for (const text of stored) expect(inLocale("en", () => detailsInWords(text))).toBe(text);
    expect(stored.map((text) => inLocale("sw", () => detailsInWords(text)))).toEqual([
      "Akaunti ya WhatsApp Business 4257481994522844: PARTNER_ADDED",
      "Akaunti ya WhatsApp Business 4257481994522844 yenye +254786536856, +254700000001",
      "Akaunti ya WhatsApp Business 42: 3 vimeingizwa, 1 vimesasishwa, 0 vimeondolewa",
      "Akaunti ya WhatsApp Business 42: 3 vimeingizwa, 1 vimesasishwa, 2 vimeondolewa (vilivyofutwa na Meta: promo_old, hello)",
      "Akaunti ya WhatsApp Business 42. Sababu: Fraud report from Safaricom",
    ]);
  });

  it("shows what it does not know as stored: older wordings, people's own words, devices, addresses", () => {
    inLocale("sw", () => {
      for (const text of [
        "Logged in",
        "constructor",
        "toString",
        "Chrome on Android",
        "196.201.214.10",
        "Sign-up for",
        "Delivery 42 and more",
      ]) {
        expect(actionInWords(text)).toBe(text);
        expect(detailsInWords(text)).toBe(text);
      }
      expect(activityInWords({ id: 1, action: "Signed in", details: null })).toEqual({
        id: 1,
        action: "Kuingia kumefanikiwa",
        details: null,
      });
      expect(activityInWords({ action: "Invoice disputed", details: "INV-2026-0001: the amount is wrong" })).toEqual({
        action: "Pingamizi la ankara limewasilishwa",
        details: "INV-2026-0001: the amount is wrong",
      });
    });
  });
});
