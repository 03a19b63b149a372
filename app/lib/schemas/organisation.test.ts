import { describe, expect, it } from "vitest";
import { COUNTIES, COUNTY_OPTIONS } from "~/lib/kenya";
import { isTimeZone, OFFERED_TIME_ZONES, timeZoneLabel } from "~/lib/time-zones";
import { normaliseKraPin, OrganisationDetailsSchema, sameOrganisationName } from "./organisation";

describe("the organisation's details", () => {
  it("reads a KRA PIN as people type it", () => {
    expect(normaliseKraPin(" p051 234 567x ")).toBe("P051234567X");
    const parsed = OrganisationDetailsSchema.safeParse({ name: "  Nyota   Sacco ", kraPin: "a123456789z", timeZone: "Africa/Nairobi" });
    expect(parsed.success && parsed.data).toMatchObject({ name: "Nyota Sacco", kraPin: "A123456789Z" });
    for (const bad of ["P12345678X", "P1234567890X", "1234567890X", "P123456789", "PP23456789X"])
      expect(OrganisationDetailsSchema.safeParse({ name: "N", kraPin: bad, timeZone: "UTC" }).success, bad).toBe(false);
  });

  it("lists Kenya's 47 counties once each, and knows the offered time zones and any other real one", () => {
    expect(new Set(COUNTIES).size).toBe(47);
    expect(COUNTY_OPTIONS.find((c) => c.value === "Nakuru")?.label).toBe("Nakuru (032)");
    expect(COUNTY_OPTIONS.find((c) => c.value === "Nairobi")?.label).toBe("Nairobi (047)");
    for (const zone of OFFERED_TIME_ZONES) expect(isTimeZone(zone), zone).toBe(true);
    expect(isTimeZone("Europe/London")).toBe(true);
    expect(isTimeZone("Africa/Wakanda")).toBe(false);
    expect(isTimeZone("africa/nairobi")).toBe(false);
    expect(timeZoneLabel("Africa/Dar_es_Salaam")).toBe("Dar es Salaam");
  });

  it("compares the typed name without minding case or spaces", () => {
    expect(sameOrganisationName("  nyota  savings SACCO ", "Nyota Savings Sacco")).toBe(true);
    expect(sameOrganisationName("Nyota", "Nyota Savings Sacco")).toBe(false);
  });
});
