// The contacts export and the activity export on the read replica (issue 78, decisions 163 and 171):
// a primary and its streaming standby of the file's own (tests/support/replica.ts), Jumbe opened on
// both, the downloads fetched through the application as a browser does. With the standby's replay
// paused, what only the primary holds shows which of the two answered: a visitor's export misses it
// (the standby), the person who wrote it gets it (the primary), and so does an export right after an
// import the job wrote; a standby stopped mid-export, or lagging past the maximum, hands the rest to
// the primary with no error. PostgreSQL only: PGlite has no replica.
import { describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { measureReplica, replicaStatus } from "~/.server/infrastructure/db/replica";
import { WRITE_MARK_COOKIE } from "~/.server/infrastructure/http/cookies";
import { saveContact } from "~/.server/domains/contacts/manage";
import { IMPORT_QUEUE, startImport, suggestMapping, uploadImport } from "~/.server/domains/contacts/import";
import { recordActivity } from "~/.server/domains/activity/record";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { runJobBatch } from "~/.server/infrastructure/jobs/worker";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { APP, cookieHeader, formRequest } from "../support/http";
import { appFetch } from "../support/in-process-app";
import { replicationAvailable } from "../support/replica";
import { replicatedPairForFile } from "../support/replica-db";

const enabled = !!process.env.TEST_DATABASE_URL && replicationAvailable();
if (process.env.TEST_DATABASE_URL && !enabled) console.warn("pg_basebackup not found: skipping the replica export tests");

registerJobHandlers();

const CONTACTS = "/messaging/contacts/export.csv";
const ACTIVITY = "/api/activity-logs/export?range=7days";

/** A download as the browser fetches it: its status and its text. */
async function download(path: string, cookie: string) {
  const answer = await appFetch(new Request(`${APP}${path}`, { headers: { cookie } }));
  return { status: answer.status, type: answer.headers.get("content-type"), text: await answer.text() };
}

/** A signed-in owner of a new organisation, with their session cookie (no write mark yet). */
async function owner(businessName: string) {
  const user = await createVerifiedUser({ businessName });
  const actor = { organizationId: user.organization.id, userId: user.user.id };
  return { ...user, actor, cookie: await signedInCookie(user.email, user.password) };
}

/** A contact written outside any request of the person's (a webhook's, a job's): no write mark. */
const contactArrives = (actor: { organizationId: string }, name: string, phone: string) =>
  saveContact({ organizationId: actor.organizationId }, { name, phone });

const BOUNDARY = "----jumbe-replica-export";
function uploadOf(csv: string) {
  const bytes = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="wateja.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--${BOUNDARY}--\r\n`,
  );
  return { body: new Blob([bytes]).stream(), boundary: BOUNDARY };
}

describe.skipIf(!enabled)("exports on the read replica", () => {
  const pair = replicatedPairForFile();
  const { open, caughtUp } = pair;

  /** Runs `work` with the standby's replay paused, and waits for it to catch up afterwards. */
  async function replayPaused(work: () => Promise<void>) {
    await caughtUp();
    await pair.clusters.standby("select pg_wal_replay_pause()");
    try {
      await work();
    } finally {
      await pair.clusters.standby("select pg_wal_replay_resume()");
    }
    await caughtUp();
  }

  it("serves the contacts export from the standby, and the person's own new contact from the primary", async () => {
    const t = await owner("Soko Fresh Grocers");
    await contactArrives(t.actor, "Amina Wanjiru", "0712 000 101");
    await replayPaused(async () => {
      await contactArrives(t.actor, "Otieno Kamau", "0712 000 102");
      // The standby has not replayed Otieno: a visitor's export (no write mark) is the standby's.
      const visitor = await download(CONTACTS, t.cookie);
      expect(visitor).toMatchObject({ status: 200, type: "text/csv; charset=utf-8" });
      expect(visitor.text).toContain("Amina Wanjiru");
      expect(visitor.text).not.toContain("Otieno Kamau");

      // The person adds a contact through the form: the answer carries their write mark.
      const added = await appFetch(
        formRequest("/messaging/contacts", { intent: "add", name: "Baraka Mwangi", phone: "0712 000 103" }, { cookie: t.cookie }),
      );
      expect(added.status).toBe(302);
      const writer = cookieHeader(added.headers.getSetCookie(), t.cookie);
      expect(writer).toContain(`${WRITE_MARK_COOKIE}=`);
      // Their export is the primary's: their contact, and Otieno too.
      const own = await download(CONTACTS, writer);
      expect(own.status).toBe(200);
      expect(own.text).toContain("Baraka Mwangi");
      expect(own.text).toContain("Otieno Kamau");
      // Without the mark, still the standby's.
      expect((await download(CONTACTS, t.cookie)).text).not.toContain("Baraka Mwangi");
    });
    // Replayed: the standby's export has all three.
    const after = await download(CONTACTS, t.cookie);
    for (const name of ["Amina Wanjiru", "Otieno Kamau", "Baraka Mwangi"]) expect(after.text).toContain(name);
  });

  it("includes an import's rows in an export right after it, though the job wrote them after the person's last request", async () => {
    const t = await owner("Pwani Fisheries");
    const neighbour = await owner("Kisumu Tailors");
    await contactArrives(neighbour.actor, "Achieng Odhiambo", "0712 000 201");
    const uploaded = await uploadImport(t.actor, uploadOf("Name,Phone\r\nZawadi Njeri,0712 000 202\r\nJuma Hamisi,0712 000 203\r\n"));
    await startImport(t.actor, uploaded.id, { duplicates: "skip", mapping: suggestMapping(uploaded.columns, new Map()) });
    await replayPaused(async () => {
      // The job runs now, on the primary; the standby does not have its rows.
      while (await runJobBatch(IMPORT_QUEUE));
      const [row] = await rawQuery<{ status: string }>("select status from contact_imports where id = $1", [uploaded.id]);
      expect(row!.status).toBe("done");
      const exported = await download(CONTACTS, t.cookie);
      expect(exported.status).toBe(200);
      expect(exported.text).toContain("Zawadi Njeri");
      expect(exported.text).toContain("Juma Hamisi");

      // Another tenant's export meanwhile is the standby's: its contact written since the pause is not in it.
      await contactArrives(neighbour.actor, "Wekesa Barasa", "0712 000 204");
      const theirs = await download(CONTACTS, neighbour.cookie);
      expect(theirs.text).toContain("Achieng Odhiambo");
      expect(theirs.text).not.toContain("Wekesa Barasa");

      // An import that ended longer ago than a write mark lives no longer holds the tenant's exports on the primary.
      await rawQuery("update contact_imports set finished_at = now() - interval '1 hour' where id = $1", [uploaded.id]);
      expect((await download(CONTACTS, t.cookie)).text).not.toContain("Zawadi Njeri");
    });
    expect((await download(CONTACTS, t.cookie)).text).toContain("Zawadi Njeri");
  });

  it("hands the rest of a contacts export to the primary when the standby stops mid-stream, with no error", async () => {
    const t = await owner("Mlima Hardware");
    // Four chunks of the export's thousand rows.
    await rawQuery(
      `insert into contacts (organization_id, name, phone)
       select $1, 'Mteja ' || g, '+2547' || lpad(g::text, 8, '0') from generate_series(1, 3500) g`,
      [t.actor.organizationId],
    );
    await caughtUp();
    await pair.clusters.standby("select pg_wal_replay_pause()");
    let stopped = false;
    try {
      // Only the primary has these: one first in the export's order (in its first chunk), one last.
      await rawQuery(
        `insert into contacts (organization_id, name, phone, created_at) values ($1, 'Early Bird', '+254799000001', '2020-01-01T00:00:00Z')`,
        [t.actor.organizationId],
      );
      await contactArrives(t.actor, "Late Comer", "0799 000 002");
      // Every chunk of a whole export is the standby's, read as the client takes it after the route answered.
      const whole = await download(CONTACTS, t.cookie);
      expect(whole.text.split("\r\n").filter(Boolean).length).toBe(1 + 3500);
      expect(whole.text).not.toContain("Early Bird");
      expect(whole.text).not.toContain("Late Comer");

      const answer = await appFetch(new Request(`${APP}${CONTACTS}`, { headers: { cookie: t.cookie } }));
      expect(answer.status).toBe(200);
      const reader = answer.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      while (text.split("\r\n").length < 1002) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      // The first chunk came from the standby: Early Bird, first in order on the primary, is not in it.
      expect(text).toContain("Mteja ");
      expect(text).not.toContain("Early Bird");
      pair.clusters.stopStandby();
      stopped = true;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      // The rest came from the primary, Late Comer included, every row once.
      const rows = text.split("\r\n").filter(Boolean);
      expect(rows.length).toBe(1 + 3500 + 1);
      expect(new Set(rows).size).toBe(rows.length);
      expect(text).toContain("Late Comer");
      expect(replicaStatus()).toMatchObject({ state: "down" });
    } finally {
      if (stopped) pair.clusters.startStandby();
      else await pair.clusters.standby("select pg_wal_replay_resume()");
    }
    await caughtUp();
    expect((await download(CONTACTS, t.cookie)).text).toContain("Early Bird");
  });

  it("serves the activity export from the standby, the person's own write from the primary, and the primary when it lags or is down", async () => {
    const t = await owner("Nyota Savings Sacco");
    await recordActivity({ organizationId: t.actor.organizationId, type: "settings", status: "success", action: "Webhook configured" });
    await replayPaused(async () => {
      await recordActivity({ organizationId: t.actor.organizationId, type: "billing", status: "success", action: "Payment received" });
      const visitor = await download(ACTIVITY, t.cookie);
      expect(visitor).toMatchObject({ status: 200, type: "text/csv; charset=utf-8" });
      expect(visitor.text).toContain("Webhook configured");
      expect(visitor.text).not.toContain("Payment received");

      // A write of the person's (their language): their next export is the primary's.
      const wrote = await appFetch(formRequest("/language", { locale: "en", redirectTo: "/activity" }, { cookie: t.cookie }));
      expect(wrote.status).toBe(302);
      const writer = cookieHeader(wrote.headers.getSetCookie(), t.cookie);
      expect(writer).toContain(`${WRITE_MARK_COOKIE}=`);
      expect((await download(ACTIVITY, writer)).text).toContain("Payment received");

      // Past a maximum lag of a second, everybody's export is the primary's.
      await open(1000);
      await vi.waitFor(
        async () => {
          await measureReplica();
          expect(replicaStatus()).toMatchObject({ state: "lagging" });
        },
        { timeout: 30_000, interval: 200 },
      );
      expect((await download(ACTIVITY, t.cookie)).text).toContain("Payment received");
    });
    await open(60_000);
    await caughtUp();

    // The standby stopped: the export is the primary's, with no error.
    await recordActivity({ organizationId: t.actor.organizationId, type: "billing", status: "success", action: "Refund issued" });
    pair.clusters.stopStandby();
    try {
      const down = await download(ACTIVITY, t.cookie);
      expect(down.status).toBe(200);
      expect(down.text).toContain("Refund issued");
      expect(replicaStatus()).toMatchObject({ state: "down" });
    } finally {
      pair.clusters.startStandby();
    }
    await caughtUp();
  });
});
