import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { activityLogs } from "~/.server/infrastructure/db/schema";
import * as listApi from "~/routes/api/activity-logs";
import * as exportApi from "~/routes/api/activity-logs.export";
import * as activityPage from "~/routes/app/activity";
import { activityStats } from "~/.server/domains/activity/log-queries";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, routeArgs, run } from "../support/http";

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

type Seed = { at: string; type?: string; status?: "success" | "warning" | "error"; action?: string; details?: string; userAgent?: string };

async function seed(organizationId: string, records: Seed[]) {
  await db()
    .insert(activityLogs)
    .values(
      records.map((r, i) => ({
        organizationId,
        type: r.type ?? "login",
        status: r.status ?? "success",
        action: r.action ?? `Action ${i}`,
        details: r.details ?? "",
        ipAddress: "196.201.214.10",
        userAgent: r.userAgent ?? "Mozilla/5.0",
        createdAt: new Date(r.at),
      })),
    );
}

const api = (path: string, cookie: string) => run(listApi.loader, getRequest(path, { cookie }));

describe("GET /api/activity-logs", () => {
  it("filters by type, status and Africa/Nairobi days", async () => {
    const t = await tenant("Chama Yetu");
    // Sign-ins made while signing in the tenant are in today's log; these are older.
    await seed(t.organization.id, [
      { at: "2026-11-20T20:59:59.999Z", action: "last moment of the 20th in Nairobi" },
      { at: "2026-11-20T21:00:00.000Z", action: "first moment of the 21st in Nairobi" },
      { at: "2026-11-21T20:59:59.000Z", action: "late on the 21st", type: "security", status: "error" },
      { at: "2026-11-21T21:00:00.000Z", action: "first moment of the 22nd" },
    ]);
    const day = await api("/api/activity-logs?startDate=2026-11-21&endDate=2026-11-21", t.cookie);
    expect(day.status).toBe(200);
    expect(day.data.logs.map((l: { action: string }) => l.action)).toEqual(["late on the 21st", "first moment of the 21st in Nairobi"]);
    expect(day.data.stats).toEqual({ total: 2, success: 1, warning: 0, error: 1 });

    const filtered = await api("/api/activity-logs?type=security&status=error&startDate=2026-11-01&endDate=2026-11-30", t.cookie);
    expect(filtered.data.logs).toEqual([
      expect.objectContaining({
        action: "late on the 21st",
        type: "security",
        status: "error",
        ipAddress: "196.201.214.10",
        userAgent: "Mozilla/5.0",
        timestamp: "2026-11-21T20:59:59.000000Z",
      }),
    ]);
    // 'all' is the same as leaving the filter out (spec: status omitted when 'all').
    const all = await api("/api/activity-logs?type=all&status=all&startDate=2026-11-20&endDate=2026-11-21", t.cookie);
    expect(all.data.logs).toHaveLength(3);

    const bad = await api("/api/activity-logs?type=payments", t.cookie);
    expect(bad.status).toBe(400);
    expect(bad.data).toEqual({ message: 'Unknown activity type "payments".' });
  });

  it("pages by keyset without gaps or repeats, even for records written in the same microsecond", async () => {
    const t = await tenant("Many Records Ltd");
    const same = "2026-11-10T09:00:00.123456Z";
    await seed(
      t.organization.id,
      Array.from({ length: 70 }, (_, i) => ({ at: i < 30 ? same : new Date(Date.parse("2026-11-10T08:00:00Z") - i * 1000).toISOString() })),
    );
    // Microseconds matter: make 30 records share one exact timestamp.
    await db().execute(
      sql`update activity_logs set created_at = ${same}::timestamptz where organization_id = ${t.organization.id} and created_at >= '2026-11-10T09:00:00Z' and created_at < '2026-11-10T09:00:01Z'`,
    );
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof api>> = await api(
        `/api/activity-logs?startDate=2026-11-10&endDate=2026-11-10&limit=25${cursor ? `&cursor=${cursor}` : ""}`,
        t.cookie,
      );
      seen.push(...page.data.logs.map((l: { id: number }) => l.id));
      cursor = page.data.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(70);
    expect(new Set(seen).size).toBe(70);
    const expected = await queryRows<{ id: number }>(
      db(),
      sql`select id from activity_logs where organization_id = ${t.organization.id} and created_at < '2026-11-11' order by created_at desc, id desc`,
    );
    expect(seen).toEqual(expected.map((r) => Number(r.id)));
  });

  it("counts the period from daily and hourly totals and exact edges, equal to counting every record", async () => {
    const t = await tenant("Counts Ltd");
    const records: Seed[] = [];
    for (let i = 0; i < 1000; i++)
      records.push({
        at: new Date(Date.parse("2026-11-01T00:00:00Z") + i * 7 * 60 * 1000 + 123).toISOString(),
        status: (["success", "warning", "error"] as const)[i % 3],
        type: i % 2 ? "login" : "settings",
      });
    await seed(t.organization.id, records);
    const scope = { kind: "organization" as const, organizationId: t.organization.id };
    for (const [start, end, type] of [
      ["2026-11-01T00:20:00Z", "2026-11-01T23:40:30Z", undefined],
      ["2026-11-01T03:00:00Z", "2026-11-01T05:00:00Z", "login"],
      ["2026-11-01T10:10:00Z", "2026-11-01T10:50:00Z", undefined],
      // Several Nairobi days: whole days, whole hours and partial hours at both ends.
      ["2026-10-31T05:30:00Z", "2026-11-04T10:10:00Z", undefined],
      ["2026-11-01T21:00:00Z", "2026-11-03T21:00:00Z", "settings"],
      ["2026-11-01T20:59:59Z", "2026-11-04T21:00:01Z", undefined],
    ] as const) {
      const stats = await activityStats(scope, { start: new Date(start), end: new Date(end), type });
      const [exact] = await queryRows<{ total: number; success: number; warning: number; error: number }>(
        db(),
        sql`
        select count(*)::int as total, count(*) filter (where status = 'success')::int as success,
               count(*) filter (where status = 'warning')::int as warning, count(*) filter (where status = 'error')::int as error
        from activity_logs where organization_id = ${t.organization.id} and created_at >= ${start}::timestamptz and created_at < ${end}::timestamptz
          ${type ? sql`and type = ${type}` : sql``}`,
      );
      expect(stats).toEqual(exact);
      expect(stats.total).toBeGreaterThan(0);
    }
  });

  it("never shows one tenant another's records, in the list, the counts or the export", async () => {
    const a = await tenant("Tenant A");
    const b = await tenant("Tenant B");
    await seed(b.organization.id, [{ at: new Date().toISOString(), action: "B's secret action", details: "B only" }]);
    const list = await api("/api/activity-logs?range=24hours", a.cookie);
    expect(JSON.stringify(list.data)).not.toContain("B's secret action");
    expect(list.data.logs.every((l: { action: string }) => l.action === "Signed in")).toBe(true);
    const csv = await (
      await exportApi.loader(routeArgs(getRequest("/api/activity-logs/export?range=24hours", { cookie: a.cookie })))
    ).text();
    expect(csv).not.toContain("B's secret action");
    const unauthenticated = await api("/api/activity-logs", "");
    expect(unauthenticated.status).toBe(401);
  });
});

describe("GET /api/activity-logs/export", () => {
  it("streams a CSV named activity_logs_{date}.csv with every matching record, escaped", async () => {
    const t = await tenant("Export Ltd");
    await seed(t.organization.id, [
      {
        at: "2026-11-05T07:00:00Z",
        action: '=HYPERLINK("http://evil.example","click")',
        details: 'Quote " and, comma',
        userAgent: "@SUM(1+1)",
      },
      { at: "2026-11-05T08:00:00Z", action: "Profile updated", details: "Jina: Wanjiků 😀\nline two", type: "profile" },
      { at: "2026-11-05T09:00:00Z", action: "-1+2", status: "warning" },
    ]);
    const response = (await exportApi.loader(
      routeArgs(getRequest("/api/activity-logs/export?startDate=2026-11-05&endDate=2026-11-05", { cookie: t.cookie })),
    )) as Response;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="activity_logs_\d{4}-\d{2}-\d{2}\.csv"$/);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // UTF-8 byte order mark, for spreadsheets
    const body = new TextDecoder().decode(bytes.slice(3));
    const lines = body.split("\r\n");
    expect(lines[0]).toBe('"ID","Timestamp","Type","Status","Action","Details","IP Address","User Agent"');
    expect(body).toContain('"\'-1+2"');
    expect(body).toContain('"Profile updated","Jina: Wanjiků 😀\nline two"');
    expect(body).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")","Quote "" and, comma","196.201.214.10","'@SUM(1+1)"`);
    expect(lines.filter((l) => l.length)).toHaveLength(4);

    const typed = await (
      await exportApi.loader(
        routeArgs(getRequest("/api/activity-logs/export?startDate=2026-11-05&endDate=2026-11-05&type=profile", { cookie: t.cookie })),
      )
    ).text();
    expect(typed.split("\r\n").filter((l) => l.length)).toHaveLength(2);
  });

  it("streams many chunks: every record once, in order", async () => {
    const t = await tenant("Big Export Ltd");
    const base = Date.parse("2026-10-01T00:00:00Z");
    await seed(
      t.organization.id,
      Array.from({ length: 4500 }, (_, i) => ({ at: new Date(base + i * 1000).toISOString(), action: `a${i}` })),
    );
    const body = await (
      await exportApi.loader(
        routeArgs(getRequest("/api/activity-logs/export?startDate=2026-10-01&endDate=2026-10-02", { cookie: t.cookie })),
      )
    ).text();
    const actions = body
      .split("\r\n")
      .slice(1)
      .filter(Boolean)
      .map((line) => line.split(",")[4]);
    expect(actions).toHaveLength(4500);
    expect(actions[0]).toBe('"a4499"');
    expect(actions.at(-1)).toBe('"a0"');
  });

  it("sends a browser back to the page with the export failure text on bad input; the API gets JSON", async () => {
    const t = await tenant("Bad Export Ltd");
    const browser = await run(
      exportApi.loader,
      getRequest("/api/activity-logs/export?type=nope", { cookie: t.cookie, headers: { accept: "text/html" } }),
    );
    expect(browser.location).toBe("/activity?type=nope&exportError=1");
    const page = await run(activityPage.loader, getRequest(browser.location!, { cookie: t.cookie }));
    expect(page.data).toMatchObject({ exportFailed: true, invalid: 'Unknown activity type "nope".' });
    const json = await run(exportApi.loader, getRequest("/api/activity-logs/export?type=nope", { cookie: t.cookie }));
    expect(json.status).toBe(400);
  });
});

describe("/activity", () => {
  it("shows the period's cards, the filtered list, paging and the export link from URL filters", async () => {
    const t = await tenant("Page Ltd");
    await seed(
      t.organization.id,
      Array.from({ length: 60 }, (_, i) => ({
        at: new Date(Date.now() - (i + 1) * 60_000).toISOString(),
        type: "security",
        status: i < 5 ? "error" : "success",
      })),
    );
    const first = await run(activityPage.loader, getRequest("/activity?type=security&range=24hours", { cookie: t.cookie }));
    expect(first.data.data.stats).toEqual({ total: 60, success: 55, warning: 0, error: 5 });
    expect(first.data.data.logs).toHaveLength(50);
    expect(first.data.data.exportUrl).toBe("/api/activity-logs/export?type=security&range=24hours");
    const second = await run(activityPage.loader, getRequest(first.data.data.nextPage, { cookie: t.cookie }));
    expect(second.data.data.logs).toHaveLength(10);
    expect(second.data.data.nextPage).toBeNull();

    const empty = await run(activityPage.loader, getRequest("/activity?type=billing", { cookie: t.cookie }));
    expect(empty.data.data.logs).toEqual([]);
    expect(empty.data.data.stats.total).toBe(0);
  });
});
