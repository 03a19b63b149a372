import { describe, expect, it } from "vitest";
import { db } from "~/.server/infrastructure/db/client";
import { contacts, messages } from "~/.server/infrastructure/db/schema";
import { foldAnalytics } from "~/.server/domains/analytics/fold";
import { notYourNumber } from "~/.server/domains/analytics/page";
import { loader as analyticsLoader } from "~/routes/app/analytics";
import { loader as csvLoader } from "~/routes/app/analytics-csv";
import type { AnalyticsPage } from "~/.server/domains/analytics/page";
import { addDays, nairobiToday } from "~/lib/analytics";
import { getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";

// Issue 18: /analytics and /analytics/daily.csv through their loaders. The filters are the URL's;
// a query the page cannot use is answered 400 with the default period's figures and the reason; a
// number is only ever one of the tenant's own; each tenant reads its own figures.

async function tenant(name: string, numbers: { wabaId: string; phoneNumberId: string; display: string }[]) {
  const account = await createVerifiedUser({ businessName: name });
  for (const number of numbers) await connectedNumber(account.organization.id, number);
  return { ...account, organizationId: account.organization.id, cookie: await signedInCookie(account.email, account.password) };
}

/** Template messages Meta accepted an hour ago on `phoneNumberId`, each delivered and read. */
async function sent(organizationId: string, phoneNumberId: string, count: number) {
  const at = new Date(Date.now() - 3_600_000);
  const [contact] = await db()
    .insert(contacts)
    .values({ organizationId, name: "Amina Hassan", phone: `+2547123${phoneNumberId.slice(-5).padStart(5, "0")}` })
    .returning({ id: contacts.id });
  await db()
    .insert(messages)
    .values(
      Array.from({ length: count }, (_, i) => ({
        organizationId,
        contactId: contact!.id,
        direction: "outbound" as const,
        status: "read",
        body: `Habari ${i}`,
        phoneNumberId,
        messageType: "template",
        source: "api",
        acceptedAt: at,
        sentAt: at,
        deliveredAt: new Date(at.getTime() + 2000),
        readAt: new Date(at.getTime() + 60_000),
        pricingCategory: "utility",
      })),
    );
}

const page = (path: string, cookie?: string) => run<AnalyticsPage>(analyticsLoader, getRequest(path, { cookie }));

describe("the Analytics page's loader", () => {
  it("refuses a bad period, a malformed or foreign number and a backwards range with 400, showing the default period", async () => {
    const mine = await tenant("Nyota Savings Sacco", [
      { wabaId: "5101", phoneNumberId: "6101", display: "+254 700 100 200" },
      { wabaId: "5102", phoneNumberId: "6102", display: "+254 711 222 333" },
    ]);
    const theirs = await tenant("Duka la Mama Ltd", [{ wabaId: "5201", phoneNumberId: "6201", display: "+254 733 000 111" }]);
    await sent(mine.organizationId, "6101", 3);
    await sent(mine.organizationId, "6102", 2);
    await sent(theirs.organizationId, "6201", 7);
    await foldAnalytics();

    const fine = await page("/analytics?period=30d&chart=read", mine.cookie);
    expect(fine.status).toBe(200);
    expect(fine.data.error).toBeNull();
    expect(fine.data.report.filters).toMatchObject({ period: "30d", chart: "read", number: null });
    expect(fine.data.report.cards.sent.value).toBe(5);
    expect(fine.data.report.numbers.map((n) => n.id).sort()).toEqual(["6101", "6102"]);

    // The form sends every field: the address it lands on keeps only those that count.
    const sentByForm = await page("/analytics?period=24h&from=2026-01-01&to=2026-01-05&number=&chart=read", mine.cookie);
    expect(sentByForm.location).toBe("/analytics?period=24h&chart=read");

    // One of its own numbers: that number's figures only.
    const one = await page("/analytics?period=7d&number=6102", mine.cookie);
    expect(one.status).toBe(200);
    expect(one.data.report.cards.sent.value).toBe(2);
    expect(one.data.form.number).toBe("6102");

    const today = nairobiToday();
    const refused: [string, string][] = [
      ["/analytics?period=fortnight", "Choose a period: 24 hours, 7, 30 or 90 days, or a custom range."],
      ["/analytics?chart=replied", "Choose Sent, Delivered or Read for the chart."],
      ["/analytics?number=not-a-number", notYourNumber()],
      // Another tenant's number is refused, never read.
      ["/analytics?number=6201", notYourNumber()],
      [`/analytics?period=custom&from=${today}&to=${addDays(today, -5)}`, "The end date must be on or after the start date."],
      [`/analytics?period=custom&from=${addDays(today, -3)}&to=${addDays(today, 2)}`, "The end date cannot be in the future."],
      ["/analytics?period=custom&from=2026-02-30&to=2026-03-02", "Enter dates as YYYY-MM-DD."],
    ];
    for (const [path, error] of refused) {
      const answer = await page(path, mine.cookie);
      expect(answer.status, path).toBe(400);
      expect(answer.data.error, path).toBe(error);
      expect(answer.data.report.filters, path).toMatchObject({ period: "7d", number: null, from: addDays(today, -6), to: today });
      // The default period's figures, all of the tenant's numbers, never the other tenant's.
      expect(answer.data.report.cards.sent.value, path).toBe(5);
    }
    // The form keeps what was asked for, so a refused custom range can be corrected.
    const backwards = await page(`/analytics?period=custom&from=${today}&to=${addDays(today, -5)}`, mine.cookie);
    expect(backwards.data.form).toMatchObject({ period: "custom", from: today, to: addDays(today, -5) });

    // Each tenant reads its own figures.
    const other = await page("/analytics?period=7d", theirs.cookie);
    expect(other.data.report.cards.sent.value).toBe(7);
    expect(other.data.report.numbers.map((n) => n.id)).toEqual(["6201"]);
    expect((await page("/analytics?number=6101", theirs.cookie)).status).toBe(400);

    // Signed out: to sign in, and back here after.
    expect((await page("/analytics?period=30d")).location).toBe("/login?from=%2Fanalytics%3Fperiod%3D30d");
  });

  it("downloads the daily table as CSV for the page's query, and refuses what the page refuses", async () => {
    const mine = await tenant("Nyota Savings Sacco", [{ wabaId: "5301", phoneNumberId: "6301", display: "+254 700 300 400" }]);
    const theirs = await tenant("Duka la Mama Ltd", [{ wabaId: "5401", phoneNumberId: "6401", display: "+254 733 400 500" }]);
    await sent(mine.organizationId, "6301", 4);
    await foldAnalytics();
    const today = nairobiToday();

    const csv = await run<string>(csvLoader, getRequest("/analytics/daily.csv?period=7d", { cookie: mine.cookie }));
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toBe(`attachment; filename="jumbe-analytics-${addDays(today, -6)}-to-${today}.csv"`);
    const lines = csv.data.trimEnd().split("\r\n");
    expect(lines[0]).toBe("period,messagesSent,messagesDelivered,messagesRead,messagesReplied,uniqueContacts,avgResponseTime");
    expect(lines).toHaveLength(8);
    expect(lines.slice(1).reduce((sum, line) => sum + Number(line.split(",")[1]), 0)).toBe(4);

    // The 24-hour period: a row an hour.
    const hours = await run<string>(csvLoader, getRequest("/analytics/daily.csv?period=24h", { cookie: mine.cookie }));
    expect(hours.data.trimEnd().split("\r\n")).toHaveLength(25);
    expect(hours.data.split("\r\n")[1]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00,/);

    for (const path of ["/analytics/daily.csv?period=fortnight", "/analytics/daily.csv?number=6401"]) {
      const refused = await run<string>(csvLoader, getRequest(path, { cookie: mine.cookie }));
      expect(refused.status, path).toBe(400);
      expect(refused.headers.get("content-type"), path).toBe("text/plain; charset=utf-8");
    }
    expect((await run<string>(csvLoader, getRequest("/analytics/daily.csv?number=6401", { cookie: mine.cookie }))).data).toBe(
      `${notYourNumber()}\n`,
    );
    // The other tenant's download has none of these figures.
    const other = await run<string>(csvLoader, getRequest("/analytics/daily.csv?period=7d", { cookie: theirs.cookie }));
    expect(
      other.data
        .trimEnd()
        .split("\r\n")
        .slice(1)
        .every((line) => line.split(",")[1] === "0"),
    ).toBe(true);
  });
});
