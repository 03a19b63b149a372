import { describe, expect, it } from "vitest";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { describeGraphFailure, GraphApiError } from "~/.server/infrastructure/clients/whatsapp-graph/graph-client";
import { approvalInWords } from "../team/broadcast-approval";
import { codeMessage } from "../auth/codes";
import { detailsInWords } from "./words";

// Issue 43: details the account, team, profile, webhook, organisation, contact, WhatsApp and API
// writers build from inputs, as stored in English (rows written before their messages were listed
// included), said in Swahili and French with the names, addresses, ids and Meta's codes as stored.

const said = (text: string) => ({
  en: inLocale("en", () => detailsInWords(text)),
  sw: inLocale("sw", () => detailsInWords(text)),
  fr: inLocale("fr", () => detailsInWords(text)),
});

describe("the people and settings details in the reader's language", () => {
  it("says a sign-in's session and second factor, and a member's role, in the reader's words", () => {
    expect(said("Remembered for 30 days; two-factor by authenticator app")).toEqual({
      en: "Remembered for 30 days; two-factor by authenticator app",
      sw: "Kivinjari kitakumbukwa kwa siku 30; uthibitishaji wa hatua mbili kwa programu ya uthibitishaji",
      fr: "Navigateur mémorisé pendant 30 jours ; validation en deux étapes par application d'authentification",
    });
    expect(said("wanjiru@nyota.co.ke: Agent to Admin").sw).toBe("wanjiru@nyota.co.ke: kutoka Mhudumu hadi Msimamizi");
    expect(said("wanjiru@nyota.co.ke joined as Viewer").fr).toBe("wanjiru@nyota.co.ke a rejoint l'équipe en tant que Lecteur");
    expect(said("wanjiru@nyota.co.ke as Agent").sw).toBe("wanjiru@nyota.co.ke kama Mhudumu");
    // Not a role: as stored.
    expect(said("wanjiru@nyota.co.ke (Chairperson)").sw).toBe("wanjiru@nyota.co.ke (Chairperson)");
  });

  it("says Jumbe's own sentences stored from the catalogue: broadcast approval, a verification code's refusal", () => {
    for (const threshold of [null, 1, 2500]) {
      const stored = approvalInWords(threshold, "en");
      expect(said(stored)).toEqual({ en: stored, sw: approvalInWords(threshold, "sw"), fr: approvalInWords(threshold, "fr") });
    }
    expect(said(codeMessage("expired", "en")).sw).toBe(codeMessage("expired", "sw"));
  });

  it("says a profile's, a webhook's and a contact import's details, keeping addresses and file names", () => {
    expect(said("Updated phone; E-mail change to wanjiru@nyota.co.ke awaiting confirmation").sw).toBe(
      "Nambari ya simu imesasishwa; mabadiliko ya barua pepe kuwa wanjiru@nyota.co.ke yanasubiri uthibitisho",
    );
    expect(said("New secret whsec_ab12...; the previous one also signs for 24 hours").sw).toBe(
      "Siri mpya whsec_ab12...; ya awali itaendelea kusaini kwa saa 24",
    );
    expect(said("members.csv: duplicates merge tags, with consent evidence").fr).toBe(
      "members.csv : doublons — fusionner les étiquettes, avec preuve du consentement",
    );
    expect(said("vip, nairobi added to 2 contacts.").sw).toBe("Anwani 2 zimewekewa lebo: vip, nairobi.");
  });

  it("says which of the organisation's fields changed, joined as the language joins a list", () => {
    const stored = "Changed name, KRA PIN, postal address, county and industry; the name is now Nyota Savings Sacco Ltd";
    expect(said(stored)).toEqual({
      en: stored,
      sw: "Mabadiliko: jina, PIN ya KRA, anwani ya posta, kaunti na sekta; jina sasa ni Nyota Savings Sacco Ltd",
      fr: "Modifications : nom, PIN KRA, adresse postale, comté et secteur d'activité ; le nom est désormais Nyota Savings Sacco Ltd",
    });
    expect(said("Changed e-mail language").sw).toBe("Mabadiliko: lugha ya barua pepe");
    expect(said("Changed time zone and county").fr).toBe("Modifications : fuseau horaire et comté");
    // A field Jumbe does not name: as stored.
    expect(said("Changed logo and county").sw).toBe("Changed logo and county");
  });

  it("says a contacts export's filter part by part, keeping the search and the tag as typed", () => {
    expect(said("search “amina”, opt-in opted in").sw).toBe("utafutaji “amina”, ridhaa: waliokubali");
    expect(said("tag vip, seen in the last 30 days").fr).toBe("étiquette vip, vus au cours des 30 derniers jours");
    expect(said("All contacts").sw).toBe("Anwani zote");
  });

  it("writes counts and days as the reader's language writes them", () => {
    const closing = "Its data will be erased on 22 December 2026 unless it is reopened. Nothing is sent meanwhile; 2 campaigns paused.";
    expect(said(closing).fr).toBe(
      "Ses données seront effacées le 22 décembre 2026 si elle n'est pas rouverte. Rien n'est envoyé d'ici là ; 2 campagnes mises en pause.",
    );
    const finished = "members.csv: 1,234 created, 0 updated, 2 skipped, 1 invalid";
    expect(said(finished).sw).toBe("members.csv: 1,234 zimeongezwa, 0 zimesasishwa, 2 zimerukwa, 1 si sahihi");
    expect(said(finished).fr).toMatch(/^members\.csv : 1\s234 créé\(s\), 0 mis à jour/);
  });

  it("keeps the API's own words and Meta's as they are, and no other sentence passes for a failed call", () => {
    const call = "GET /api/v1/phone-numbers?connection=maybe answered 400: invalid_request: The query parameter connection is not valid.";
    expect(said(call).sw).toBe(
      "Ombi GET /api/v1/phone-numbers?connection=maybe lilijibiwa 400: invalid_request: The query parameter connection is not valid.",
    );
    const graph = describeGraphFailure(
      new GraphApiError({ step: "subscribed_apps", status: 401, code: 190, message: "Invalid OAuth access token" }),
    );
    expect(graph).toBe("Meta answered subscribed_apps: (#190) Invalid OAuth access token");
    expect(said(graph).sw).toBe("Jibu la Meta kwa subscribed_apps: (#190) Invalid OAuth access token");
    // Another writer's sentence with "answered" in it is not read as an API call.
    const template = "Meta did not accept it: Meta answered upload.create: (#100) Invalid parameter";
    expect(said(template).sw).not.toMatch(/^Ombi/);
  });
});
