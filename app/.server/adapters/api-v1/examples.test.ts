import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { literal, pathParameterVariable } from "./examples";
import { matchPath } from "./handle";
import { campaignCreateExample, CampaignCreate } from "./campaign-schemas";
import { ENDPOINTS } from "./endpoints";

const tricky = {
  name: 'it\'s "quoted" \\ and ünïcode ✓ \u2028',
  yes: true,
  no: false,
  none: null,
  count: 10,
  ratio: 0.5,
  list: [1, "two", [3, [4]], { five: 5 }],
  "not-an-identifier": [],
  empty: {},
};

describe("example bodies", () => {
  it("write the same value in JSON, JavaScript and Python", () => {
    expect(JSON.parse(literal(tricky, "json"))).toEqual(tricky);
    const js = execFileSync(process.execPath, [
      "--input-type=module",
      "-e",
      `process.stdout.write(JSON.stringify(${literal(tricky, "javascript")}))`,
    ]);
    expect(JSON.parse(js.toString())).toEqual(tricky);
    const py = execFileSync("python3", ["-c", `import json, sys\nsys.stdout.write(json.dumps(${literal(tricky, "python")}))`]);
    expect(JSON.parse(py.toString())).toEqual(tricky);
    // A single quote survives the shell's single quotes as curl's examples write them.
    const sh = execFileSync("sh", ["-c", `printf %s '${literal(tricky, "json").replace(/'/g, `'\\''`)}'`]);
    expect(JSON.parse(sh.toString())).toEqual(tricky);
  });

  it("name a path parameter's variable after the resource", () => {
    expect(pathParameterVariable("/api/v1/templates/{id}", "id")).toBe("TEMPLATE_ID");
    expect(pathParameterVariable("/api/v1/phone-numbers/{id}", "id")).toBe("PHONE_NUMBER_ID");
    expect(pathParameterVariable("/api/v1/campaigns/{id}/pause", "id")).toBe("CAMPAIGN_ID");
    expect(pathParameterVariable("/api/v1/automations/rules/{id}", "id")).toBe("RULE_ID");
  });

  it("schedule the campaign example a week ahead at 09:00 in Nairobi, a valid body whatever the day", () => {
    for (const now of [new Date("2026-11-23T12:00:00Z"), new Date("2026-12-31T21:30:00Z"), new Date("2027-02-21T20:59:59Z")]) {
      const example = campaignCreateExample(now);
      expect(CampaignCreate.safeParse(example).success).toBe(true);
      const at = Date.parse(example.scheduledFor!);
      expect(at - now.getTime()).toBeGreaterThan(6 * 86_400_000);
      expect(at - now.getTime()).toBeLessThan(8 * 86_400_000);
      expect(example.scheduledFor).toMatch(/T09:00:00\+03:00$/);
    }
    expect(campaignCreateExample(new Date("2026-12-31T21:30:00Z")).scheduledFor).toBe("2027-01-08T09:00:00+03:00");
  });
});

describe("every endpoint's example body", () => {
  it("is one its own schema accepts", () => {
    for (const endpoint of ENDPOINTS.filter((e) => e.body))
      expect(endpoint.body!.schema.safeParse(endpoint.body!.example).error, endpoint.operationId).toBeUndefined();
  });
});

describe("path matching", () => {
  it("matches one segment per parameter, decoded, and nothing else", () => {
    expect(matchPath("/api/v1/templates", "/api/v1/templates")).toEqual({});
    expect(matchPath("/api/v1/templates/{id}", "/api/v1/templates/abc%20d")).toEqual({ id: "abc d" });
    expect(matchPath("/api/v1/templates/{id}", "/api/v1/templates/")).toBeUndefined();
    expect(matchPath("/api/v1/templates/{id}", "/api/v1/templates/a/b")).toBeUndefined();
    expect(matchPath("/api/v1/templates/{id}", "/api/v1/templates/%E0%A4%A")).toBeUndefined();
    expect(matchPath("/api/v1/templates", "/api/v1/Templates")).toBeUndefined();
  });
});
