import { describe, expect, it } from "vitest";
import { endpointDocs } from "~/.server/adapters/api-v1/examples";
import { openApiDocument } from "~/.server/adapters/api-v1/openapi";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { endpointDescription, endpointSummary, errorAction, errorMeaning, TRANSLATED } from "./reference-words";

// Issue 43: the Developers pages say the API reference in the page's language; in English they say
// exactly what the OpenAPI document says (the API itself stays English).
const doc = openApiDocument();
const endpoints = endpointDocs(doc);
const catalogue = doc["x-error-catalogue"];

describe("the API reference's words", () => {
  it("has words for every endpoint and every error code the document publishes", () => {
    expect([...TRANSLATED.operations].sort()).toEqual(endpoints.map((e) => e.operationId).sort());
    expect([...TRANSLATED.codes].sort()).toEqual(catalogue.map((row) => row.code).sort());
  });

  it("says in English what the document says, word for word", () => {
    inLocale("en", () => {
      for (const e of endpoints) {
        expect(endpointSummary(e.operationId, ""), e.operationId).toBe(e.summary);
        expect(endpointDescription(e.operationId, ""), e.operationId).toBe(e.description);
      }
      for (const row of catalogue) {
        expect(errorMeaning(row.code, ""), row.code).toBe(row.meaning);
        expect(errorAction(row.code, ""), row.code).toBe(row.action);
      }
    });
  });

  it("says it in Swahili and French, keeping paths, field names and codes", () => {
    for (const locale of ["sw", "fr"] as const) {
      inLocale(locale, () => {
        const send = endpoints.find((e) => e.operationId === "sendMessage")!;
        expect(endpointSummary(send.operationId, send.summary)).not.toBe(send.summary);
        expect(endpointDescription(send.operationId, send.description)).toContain("GET /api/v1/messages/{id}");
        expect(endpointDescription("createCampaign", "")).toContain("{ index, field, fallback }");
        expect(endpointDescription("uploadMedia", "")).toContain("image/jpeg, image/png");
        expect(errorMeaning("rate_limited", "")).not.toBe(catalogue.find((row) => row.code === "rate_limited")!.meaning);
      });
    }
  });

  it("shows an endpoint or a code it has no words for as the document writes it", () => {
    expect(endpointSummary("someLaterEndpoint", "Its own summary")).toBe("Its own summary");
    expect(errorAction("some_later_code", "Its own action")).toBe("Its own action");
  });
});
