import { describe, expect, it } from "vitest";
import { PgDialect } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { messagesUsedThisMonthAt } from "./month-usage";

describe("messagesUsedThisMonthAt", () => {
  const dialect = new PgDialect();
  const render = (at: Date) => dialect.sqlToQuery(sql`select ${messagesUsedThisMonthAt("o.id", at)} from organizations o`);

  // A statement whose text changed with the time would be parsed and planned at every request, and
  // would never be prepared (decision 062).
  it("keeps the moment out of the statement's text: the same text at any time, the moment a parameter", () => {
    const first = render(new Date("2026-11-26T08:00:00Z"));
    const second = render(new Date("2026-12-01T00:00:00Z"));
    expect(first.sql).toBe(second.sql);
    expect(first.params).toEqual(["2026-11-26T08:00:00.000Z", "2026-11-26T08:00:00.000Z"]);
    expect(first.sql).toContain("date_trunc('month', $1::timestamptz at time zone 'Africa/Nairobi')");
    expect(first.sql).toContain("u.organization_id = o.id");
  });
});
