// A read replica for heavy reads (issue 78, decision 163): a primary and its streaming standby of the
// file's own (tests/support/replica.ts), Jumbe opened on both. The console's users list and the
// analytics report read the replica; a person's own write is read back from the primary while the
// standby's replay is paused, when other people still read the replica until its lag passes the
// maximum; /metrics shows the lag; the standby stopped and started again sends reads to the primary
// with no error, and back. PostgreSQL only: PGlite has no replica.
import { describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import { readDb } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { measureReplica, parseLsn, replicaStatus, withReadScope } from "~/.server/infrastructure/db/replica";
import { writeMark } from "~/.server/infrastructure/http/read-your-writes";
import { WRITE_MARK_COOKIE } from "~/.server/infrastructure/http/cookies";
import { userCounts } from "~/.server/domains/admin/users/list";
import { analyticsReport } from "~/.server/domains/analytics/report";
import { prometheusText } from "~/.server/domains/admin/system/prometheus";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { appFetch } from "../support/in-process-app";
import { formRequest, getRequest, run } from "../support/http";
import * as keyApi from "~/routes/api/developer.api-key";
import { answerApiV1 } from "~/.server/adapters/api-v1/serve";
import { handleApiV1 } from "~/.server/adapters/api-v1/handle";
import { replicationAvailable } from "../support/replica";
import { replicatedPairForFile } from "../support/replica-db";

const enabled = !!process.env.TEST_DATABASE_URL && replicationAvailable();
if (process.env.TEST_DATABASE_URL && !enabled) console.warn("pg_basebackup not found: skipping the read replica tests");

/** The platform's organisations as the console's users list counts them. */
const organisations = async () => (await userCounts({ kind: "platform" })).total;

/** Whether the database readDb answers with is the standby. */
const onStandby = async () =>
  (await queryRows<{ standby: boolean }>(await readDb(), sql`select pg_is_in_recovery() as standby`))[0]!.standby;

/** A read scope as a request of someone who wrote nothing yet has, or one carrying a person's mark. */
const asVisitor = <T>(work: () => Promise<T>) => withReadScope(null, work);

describe.skipIf(!enabled)("a read replica for heavy reads", () => {
  const pair = replicatedPairForFile();
  const { open, caughtUp } = pair;

  it("reads analytics and the console's figures from the standby, and nothing outside a request's read scope", async () => {
    const { organization } = await createVerifiedUser({ businessName: "Nyota Savings Sacco" });
    await caughtUp();
    expect(await asVisitor(onStandby)).toBe(true);
    // The tenant's analytics report runs on the standby and answers.
    const report = await asVisitor(() =>
      analyticsReport(organization.id, { period: "custom", from: "2026-11-01", to: "2026-11-07", number: null, chart: "sent" }),
    );
    expect(report.cards.sent).toMatchObject({ value: 0 });
    expect(await asVisitor(organisations)).toBe(1);
    // A job or a webhook calls without a read scope: the primary.
    expect(await onStandby()).toBe(false);
  });

  it("sends a person's own write back from the primary while replay is paused; others read the standby until it lags too far", async () => {
    const owner = await createVerifiedUser({ businessName: "Baraka Hardware" });
    const cookie = await signedInCookie(owner.email, owner.password);
    await caughtUp();
    await pair.clusters.standby("select pg_wal_replay_pause()");
    try {
      // The person changes their language (a POST that writes): the answer carries the primary's position.
      const [{ lsn: before }] = (await pair.clusters.primary("select pg_current_wal_lsn()::text as lsn")) as [{ lsn: string }];
      const answer = await appFetch(formRequest("/language", { locale: "sw", redirectTo: "/dashboard" }, { cookie }));
      expect(answer.status).toBe(302);
      const set = answer.headers.getSetCookie().find((c) => c.startsWith(`${WRITE_MARK_COOKIE}=`));
      expect(set).toMatch(/HttpOnly; SameSite=Lax/);
      const value = set!.split(";")[0]!.slice(WRITE_MARK_COOKIE.length + 1);
      const session = cookie.split("=")[1]!;
      const mark = writeMark(session, value);
      expect(mark).not.toBeNull();
      expect(mark! >= parseLsn(before)!).toBe(true);
      // Another session's mark, or a forged one, is no mark.
      expect(writeMark("another-session", value)).toBeNull();
      expect(
        writeMark(
          session,
          value.replace(/^[0-9A-F]/, (d) => (d === "F" ? "E" : "F")),
        ),
      ).toBeNull();
      // A GET writes no mark.
      const page = await appFetch(new Request("http://jumbe.test/dashboard", { headers: { cookie } }));
      expect(page.headers.getSetCookie().some((c) => c.startsWith(`${WRITE_MARK_COOKIE}=`))).toBe(false);

      // A new organisation on the primary, not replayed: the person who wrote reads it, a visitor the standby's figure.
      await createVerifiedUser({ businessName: "Mama Oliech Foods" });
      const [{ lsn: after }] = (await pair.clusters.primary("select pg_current_wal_insert_lsn()::text as lsn")) as [{ lsn: string }];
      const asWriter = <T>(work: () => Promise<T>) => withReadScope(parseLsn(after), work);
      expect(await asWriter(organisations)).toBe(2);
      expect(await asWriter(onStandby)).toBe(false);
      await measureReplica();
      expect(replicaStatus()?.lagBytes).toBeGreaterThan(0);
      expect(await asVisitor(organisations)).toBe(1);
      expect(await asVisitor(onStandby)).toBe(true);

      // Past a maximum lag of a second, everybody reads the primary, and /metrics says how far behind it is.
      await open(1000);
      await vi.waitFor(
        async () => {
          await measureReplica();
          expect(replicaStatus()).toMatchObject({ state: "lagging" });
        },
        { timeout: 30_000, interval: 200 },
      );
      expect(await asVisitor(organisations)).toBe(2);
      expect(await asVisitor(onStandby)).toBe(false);
      const { text } = await prometheusText();
      expect(text).toMatch(/^jumbe_replica_up 0$/m);
      expect(Number(/^jumbe_replica_lag_seconds (\S+)$/m.exec(text)?.[1])).toBeGreaterThan(1);
      expect(Number(/^jumbe_replica_lag_bytes (\S+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    } finally {
      await pair.clusters.standby("select pg_wal_replay_resume()");
    }
    // Replay resumed: the standby catches up and serves again.
    await caughtUp();
    expect(await asVisitor(organisations)).toBe(2);
    expect(await asVisitor(onStandby)).toBe(true);
    const { text } = await prometheusText();
    expect(text).toMatch(/^jumbe_replica_up 1$/m);
    expect(text).toMatch(/^jumbe_replica_lag_seconds 0$/m);
    await open(60_000);
  });

  it("answers the public API's reads from the standby as the server serves them, not a call outside its read scope (decision 187)", async () => {
    const owner = await createVerifiedUser({ businessName: "Jua Kali Traders" });
    const cookie = await signedInCookie(owner.email, owner.password);
    const key = (await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }))).data.key as string;
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "Africa/Nairobi" }).format(new Date());
    const analytics = () =>
      new Request(`http://jumbe.test/api/v1/analytics?period=custom&from=${today}&to=${today}`, {
        headers: { authorization: `Bearer ${key}` },
      });
    const sent = async (response: Response) => {
      expect(response.status).toBe(200);
      return ((await response.json()) as { cards: { sent: { value: number } } }).cards.sent.value;
    };
    await caughtUp();
    await pair.clusters.standby("select pg_wal_replay_pause()");
    try {
      // Seven messages counted on the primary, not replayed.
      await pair.clusters.primary(
        `insert into message_stats_daily (organization_id, day, sent) values ('${owner.organization.id}', '${today}', 7)`,
      );
      const meta = { ip: "127.0.0.1", userAgent: "replica-test" };
      expect(await sent(await answerApiV1(analytics(), meta))).toBe(0);
      // The same call without the server's read scope reads the primary.
      expect(await sent(await handleApiV1(analytics(), meta))).toBe(7);
    } finally {
      await pair.clusters.standby("select pg_wal_replay_resume()");
    }
    await caughtUp();
    expect(await sent(await answerApiV1(analytics(), { ip: "127.0.0.1", userAgent: "replica-test" }))).toBe(7);
  });

  it("falls back to the primary with no error while the standby is down, and comes back when it is up", async () => {
    await createVerifiedUser({ businessName: "Tumaini Pharmacy" });
    await caughtUp();
    expect(await asVisitor(onStandby)).toBe(true);
    pair.clusters.stopStandby();
    try {
      // The first read finds the standby gone and is answered by the primary; the next ones go there at once.
      expect(await asVisitor(organisations)).toBe(1);
      expect(await asVisitor(onStandby)).toBe(false);
      expect(replicaStatus()).toMatchObject({ state: "down", lagMs: null });
      const { text } = await prometheusText();
      expect(text).toMatch(/^jumbe_replica_up 0$/m);
    } finally {
      pair.clusters.startStandby();
    }
    await caughtUp();
    expect(await asVisitor(onStandby)).toBe(true);
    expect(await asVisitor(organisations)).toBe(1);
  });
});
