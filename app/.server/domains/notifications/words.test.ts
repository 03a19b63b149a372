import { describe, expect, it } from "vitest";
import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Executor } from "../../infrastructure/db/client";
import { inLocale } from "../../infrastructure/http/display-zone";
import { formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";
import type { Locale } from "~/paraglide/runtime";
import { outcomeInWords, outcomeWords, type CampaignOutcome } from "../campaigns/outcome";
import {
  notifyApprovalDecided,
  notifyApprovalRequested,
  notifyCampaignFinished,
  notifyCampaignPaused,
  notifyInvitationAccepted,
  notifyQualityDrop,
  notifyRoleChanged,
  notifyTemplateDecision,
  notifyWebhookFailing,
} from "./emitters";
import { notifyNewDeviceSignIn } from "./new-device";
import { inEnglish, noticeIn, type NoticeWords } from "./words";
import { sayIn, words } from "../../infrastructure/words/said";

// Issue 43: a notification keeps what it says as messages and inputs, and each reader sees it in
// their language. Its English (the stored title and body) is word for word what it was before.

interface Written {
  title: string;
  body: string;
  words: NoticeWords;
  /** The mail job's payload beside the notification. */
  mail: unknown;
}

/** A database that answers notify()'s one statement and keeps what it was asked to write. */
function recorder() {
  const written: Written[] = [];
  const dialect = new PgDialect();
  const executor = {
    execute: async (query: SQL) => {
      const { params } = dialect.sqlToQuery(query);
      const at = params.findIndex((p) => typeof p === "string" && p.startsWith('{"title"'));
      if (at < 2) throw new Error("notify() wrote no words");
      const payload = params.find((p) => typeof p === "string" && p.startsWith('{"mail"'));
      written.push({
        title: params[at - 2] as string,
        body: params[at - 1] as string,
        words: JSON.parse(params[at] as string) as NoticeWords,
        mail: payload ? (JSON.parse(payload as string) as { mail: unknown }).mail : undefined,
      });
      return { rows: [{ notified: 1, mailed: 0 }] };
    },
  } as unknown as Executor;
  return { executor, written };
}

/** What one emitter writes (the last call's). */
async function emitted(emit: (executor: Executor) => Promise<unknown>): Promise<Written> {
  const { executor, written } = recorder();
  await emit(executor);
  expect(written).toHaveLength(1);
  return written[0]!;
}

const said = (locale: Locale, w: Written) => noticeIn(locale, { title: w.title, body: w.body, words: w.words });
const group = (n: number, locale: string) => new Intl.NumberFormat(locale).format(n);

const org = "00000000-0000-4000-8000-000000000001";
const campaign = { organizationId: org, id: "00000000-0000-4000-8000-000000000002", name: "Water rationing", kind: "campaign" };
const broadcast = { ...campaign, name: "Flash sale", kind: "broadcast" };

describe("each emitter's English, word for word as before issue 43", () => {
  const template = { organizationId: org, templateId: "t1", name: "order_update", at: "1750000000", reason: null };

  it("a template decision", async () => {
    expect(await emitted((x) => notifyTemplateDecision(x, { ...template, event: "APPROVED" }))).toMatchObject({
      title: "Meta approved the template order_update",
      body: "It can be sent now.",
    });
    expect(await emitted((x) => notifyTemplateDecision(x, { ...template, event: "REJECTED", reason: "INVALID_FORMAT" }))).toMatchObject({
      title: "Meta rejected the template order_update",
      body: "Meta's reason: INVALID_FORMAT. Edit it and submit it again.",
    });
    expect(await emitted((x) => notifyTemplateDecision(x, { ...template, event: "REJECTED" }))).toMatchObject({
      body: "Edit it and submit it again.",
    });
    expect(await emitted((x) => notifyTemplateDecision(x, { ...template, event: "PAUSED" }))).toMatchObject({
      title: "Meta paused the template order_update",
      body: "People reported or ignored it. Campaigns sending it are paused until Meta lifts the pause.",
    });
    expect(await emitted((x) => notifyTemplateDecision(x, { ...template, event: "DISABLED" }))).toMatchObject({
      title: "Meta disabled the template order_update",
      body: "It can no longer be sent. Campaigns sending it are paused.",
    });
    const { executor, written } = recorder();
    await notifyTemplateDecision(executor, { ...template, event: "PENDING" });
    expect(written).toEqual([]);
  });

  it("a campaign paused, by a member or by Jumbe", async () => {
    expect(await emitted((x) => notifyCampaignPaused(x, campaign, { by: "u1" }))).toMatchObject({
      title: "Campaign paused: Water rationing",
      body: "A member paused it. Nothing more is sent until it is resumed.",
    });
    const reason = m.messaging_paused_template_paused({ name: "order_update" }, { locale: "en" });
    expect(await emitted((x) => notifyCampaignPaused(x, broadcast, { reason }))).toMatchObject({
      title: "Broadcast paused: Flash sale",
      body: reason,
    });
  });

  it("a campaign finished, with its outcome", async () => {
    const outcome: CampaignOutcome = {
      sent: 1200,
      failed: 3,
      failedBy: [
        { words: "app_notice_failure_unreachable", count: 2 },
        { words: "app_notice_failure_too_fast", count: 1 },
      ],
      leftOut: 4,
    };
    expect(outcomeInWords(outcome)).toBe("1,200 sent, 3 failed (2 not reachable on WhatsApp, 1 sent too fast), 4 left out");
    expect(outcomeInWords({ sent: 45, failed: 0, failedBy: [], leftOut: 0 })).toBe("45 sent, none failed");
    expect(await emitted((x) => notifyCampaignFinished(x, campaign, outcomeWords(outcome)))).toMatchObject({
      title: "Campaign finished: Water rationing",
      body: "1,200 sent, 3 failed (2 not reachable on WhatsApp, 1 sent too fast), 4 left out. Failures WhatsApp reports later show on its page, with the results.",
    });
    expect((await emitted((x) => notifyCampaignFinished(x, broadcast, outcomeWords(outcome)))).title).toBe(
      "Broadcast finished: Flash sale",
    );
  });

  it("a number's quality dropped", async () => {
    const phone = { organizationId: org, phoneNumberId: "p1", display: "+254 711 000 001", at: "1750000000", limit: null };
    expect(await emitted((x) => notifyQualityDrop(x, { ...phone, event: "FLAGGED" }))).toMatchObject({
      title: "Quality of +254 711 000 001 flagged as low",
      body: "People blocked or reported its messages. Its campaigns are paused: review the template and the audience, then resume.",
    });
    expect(await emitted((x) => notifyQualityDrop(x, { ...phone, event: "DOWNGRADE", limit: "TIER_1K" }))).toMatchObject({
      title: "Messaging limit of +254 711 000 001 lowered",
      body: "Meta lowered the number's messaging limit to TIER_1K after its quality dropped.",
    });
    expect((await emitted((x) => notifyQualityDrop(x, { ...phone, event: "DOWNGRADE" }))).body).toBe(
      "Meta lowered the number's messaging limit after its quality dropped.",
    );
  });

  it("webhooks failing, then disabled (whose e-mail is its own)", async () => {
    const endpoint = { organizationId: org, url: "https://hooks.duka.co.ke/jumbe", failingSince: "2026-01-01T00:00:00Z" };
    expect(await emitted((x) => notifyWebhookFailing(x, { ...endpoint, disabled: false }))).toMatchObject({
      title: "Webhook deliveries are failing",
      body: "Deliveries to https://hooks.duka.co.ke/jumbe have failed for over an hour. Jumbe keeps retrying for three days, then disables the endpoint.",
      mail: undefined,
    });
    expect(await emitted((x) => notifyWebhookFailing(x, { ...endpoint, disabled: true }))).toMatchObject({
      title: "Webhook endpoint disabled",
      body: "No delivery to https://hooks.duka.co.ke/jumbe has succeeded for three days, so Jumbe stopped sending to it. Re-enable it once it answers; the failed events can be redelivered.",
      // The mail job writes it in the recipient's language from this.
      mail: { kind: "webhook_disabled", url: "https://hooks.duka.co.ke/jumbe" },
    });
  });

  it("an invitation accepted and a role changed", async () => {
    const joined = {
      organizationId: org,
      invitationId: "i1",
      userId: "u2",
      name: "Wanjiru Kamau",
      email: "wanjiru@duka.co.ke",
      role: "agent" as const,
      invitedBy: null,
    };
    expect(await emitted((x) => notifyInvitationAccepted(x, joined))).toMatchObject({
      title: "Wanjiru Kamau joined the team",
      body: "wanjiru@duka.co.ke accepted the invitation and joined as Agent.",
    });
    expect((await emitted((x) => notifyInvitationAccepted(x, { ...joined, name: "" }))).title).toBe("wanjiru@duka.co.ke joined the team");
    const change = { organizationId: org, memberId: "u3", from: "agent" as const, to: "viewer" as const, by: "Akinyi Otieno" };
    expect(await emitted((x) => notifyRoleChanged(x, change))).toMatchObject({
      title: "Your role is now Viewer",
      body: "Akinyi Otieno changed your role from Agent to Viewer.",
    });
  });

  it("English even when the member who acted reads Swahili (the stored text is the English)", async () => {
    const change = { organizationId: org, memberId: "u3", from: "agent" as const, to: "admin" as const, by: "Akinyi Otieno" };
    const written = await inLocale("sw", () => emitted((x) => notifyRoleChanged(x, change)));
    expect(written.title).toBe("Your role is now Admin");
  });

  it("a campaign's approval asked for and decided", async () => {
    expect(await emitted((x) => notifyApprovalRequested(x, campaign, { recipients: 1234 }))).toMatchObject({
      title: "Campaign awaiting your approval: Water rationing",
      body: "It would reach 1,234 people. An owner or admin other than its author approves or declines it on its page.",
    });
    expect((await emitted((x) => notifyApprovalRequested(x, broadcast, { recipients: 5 }))).title).toBe(
      "Broadcast awaiting your approval: Flash sale",
    );
    expect(await emitted((x) => notifyApprovalDecided(x, campaign, { by: "u1", approved: true, outcome: "sending" }))).toMatchObject({
      title: "Campaign approved: Water rationing",
      body: "It is sending now.",
    });
    expect(await emitted((x) => notifyApprovalDecided(x, broadcast, { by: "u1", approved: true, outcome: "scheduled" }))).toMatchObject({
      title: "Broadcast approved: Flash sale",
      body: "It will send at its scheduled time.",
    });
    expect(await emitted((x) => notifyApprovalDecided(x, campaign, { by: "u1", approved: false, reason: "Wrong audience" }))).toMatchObject(
      {
        title: "Campaign declined: Water rationing",
        body: "Reason: Wrong audience",
      },
    );
  });

  it("a sign-in from a new device", async () => {
    const at = new Date("2026-03-14T09:05:00Z");
    const written = await emitted((x) =>
      notifyNewDeviceSignIn(
        {
          user: { id: "u1" },
          organizationId: org,
          at,
          knownDevice: false,
          meta: { ip: "", userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36" },
        } as Parameters<typeof notifyNewDeviceSignIn>[0],
        x,
      ),
    );
    expect(written.title).toBe("New sign-in from Chrome on Windows");
    expect(written.body).toBe(
      `Your account was signed in to from a new device: Chrome on Windows, IP address unknown, ${inLocale("en", () => formatWhen(at))}. If this was not you, change your password and sign out of the sessions you do not know.`,
    );
    const device = m.validation_auth_device_on({ browser: "Chrome", system: "Windows" }, { locale: "fr" });
    expect(said("fr", written).title).toBe(`Nouvelle connexion depuis ${device}`);
    expect(said("sw", written).body).toContain(inLocale("sw", () => formatWhen(at)));
    expect(said("sw", written).body).toContain(m.app_notice_unknown_ip({}, { locale: "sw" }));
  });
});

describe("a notification in its reader's language", () => {
  it("says each emitter's words from the catalogue in Swahili and French", async () => {
    const decided = await emitted((x) =>
      notifyTemplateDecision(x, { organizationId: org, templateId: "t1", name: "order_update", event: "APPROVED", at: "1", reason: null }),
    );
    expect(said("sw", decided)).toEqual({
      title: m.app_notice_template_approved_title({ name: "order_update" }, { locale: "sw" }),
      body: m.app_notice_template_approved_body({}, { locale: "sw" }),
    });
    expect(said("sw", decided).title).toBe("Meta imeidhinisha kiolezo order_update");
    expect(said("fr", decided).title).toBe("Meta a approuvé le modèle order_update");
    expect(said("en", decided)).toEqual({ title: decided.title, body: decided.body });
  });

  it("says nested words (a role, a pause reason, an outcome) in the same language", async () => {
    const change = { organizationId: org, memberId: "u3", from: "agent" as const, to: "viewer" as const, by: "Akinyi Otieno" };
    const role = await emitted((x) => notifyRoleChanged(x, change));
    expect(said("sw", role).title).toBe("Jukumu lako sasa ni Mtazamaji");
    expect(said("fr", role).body).toBe("Akinyi Otieno a changé votre rôle de Agent à Lecteur.");

    const reason = m.messaging_paused_template_disabled({ name: "order_update" }, { locale: "en" });
    const paused = await emitted((x) => notifyCampaignPaused(x, campaign, { reason }));
    expect(paused.words.body).toEqual(["messaging_paused_template_disabled", { name: "order_update" }]);
    expect(said("sw", paused)).toEqual({
      title: "Kampeni imesitishwa: Water rationing",
      body: m.messaging_paused_template_disabled({ name: "order_update" }, { locale: "sw" }),
    });
    expect(said("sw", await emitted((x) => notifyCampaignPaused(x, broadcast, { reason }))).title).toBe("Tangazo limesitishwa: Flash sale");

    const outcome = { sent: 1200, failed: 2, failedBy: [{ words: "app_notice_failure_unreachable" as const, count: 2 }], leftOut: 0 };
    const finished = await emitted((x) => notifyCampaignFinished(x, campaign, outcomeWords(outcome)));
    expect(said("fr", finished).body).toBe(
      `Résultat : envoyés : ${group(1200, "fr-KE")}, échecs : 2 (injoignable sur WhatsApp : 2). Les échecs que WhatsApp signalera plus tard apparaîtront sur sa page, avec les résultats.`,
    );
    expect(said("sw", finished).body.startsWith("Matokeo: zilizotumwa 1,200, zilizoshindwa 2 (hawapatikani kwenye WhatsApp: 2).")).toBe(
      true,
    );
  });

  it("keeps Meta's own reason as Meta wrote it, in every language", async () => {
    const reason = "(#131000) Something went wrong";
    const paused = await emitted((x) => notifyCampaignPaused(x, campaign, { reason }));
    expect(paused.body).toBe(reason);
    expect(said("sw", paused).body).toBe(reason);
    const rejected = await emitted((x) =>
      notifyTemplateDecision(x, { organizationId: org, templateId: "t1", name: "n", event: "REJECTED", at: "1", reason: "INVALID_FORMAT" }),
    );
    expect(said("fr", rejected).body).toBe("Motif de Meta : INVALID_FORMAT. Modifiez-le et soumettez-le à nouveau.");
  });

  it("groups a count as the reader's language does", async () => {
    const asked = await emitted((x) => notifyApprovalRequested(x, campaign, { recipients: 1234567 }));
    expect(asked.words.body).toEqual(["app_notice_approval_body", { count: 1234567 }]);
    expect(said("fr", asked).body).toContain(`atteindrait ${group(1234567, "fr-KE")} personnes`);
    expect(group(1234567, "fr-KE")).not.toBe("1,234,567");
    expect(said("sw", asked).body).toContain(`watu ${group(1234567, "sw-KE")}.`);
  });

  it("writes amounts as the reader's language writes Kenya shillings", () => {
    const low = { title: words("app_notice_low_balance_title", { amount: { kes: 123450 } }) };
    expect(inEnglish(low).title).toBe("Wallet balance low: KES 1,234.50");
    expect(sayIn("fr", low.title)).toMatch(/^Solde du portefeuille bas : 1\s234,50\sKES$/);
  });
});

describe("stored text when the words cannot be said", () => {
  const row = { title: "Campaign finished: Water rationing", body: "400 sent, none failed." };

  it("shows the stored text of a row without words (written before issue 43)", () => {
    expect(noticeIn("sw", row)).toEqual(row);
    expect(noticeIn("sw", { ...row, words: null })).toEqual(row);
  });

  it("falls back, part by part, for a key no longer in the catalogue or an input of an unknown shape", () => {
    const unknownKey = { title: ["app_notice_no_such_message", { name: "x" }], body: ["app_notice_paused_by_member_body"] };
    expect(noticeIn("sw", { ...row, words: unknownKey })).toEqual({
      title: row.title,
      body: m.app_notice_paused_by_member_body({}, { locale: "sw" }),
    });
    // A nested unknown key takes its whole part back to the stored text.
    const nested = { title: ["app_notice_role_title", { role: ["validation_role_nobody"] }] };
    expect(noticeIn("fr", { ...row, words: nested }).title).toBe(row.title);
    expect(noticeIn("fr", { ...row, words: { title: ["app_notice_role_title", { role: { what: 1 } }] } }).title).toBe(row.title);
    expect(noticeIn("fr", { ...row, words: { title: [42] } }).title).toBe(row.title);
    expect(noticeIn("fr", { ...row, words: "not words" })).toEqual(row);
    // Not a key of the catalogue's object itself.
    expect(noticeIn("fr", { ...row, words: { title: ["toString"] } }).title).toBe(row.title);
  });

  it("refuses to write words English cannot say", () => {
    expect(() => inEnglish({ title: ["app_notice_no_such_message" as never] })).toThrow();
  });
});
