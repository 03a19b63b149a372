import { describe, expect, it } from "vitest";
import { db } from "~/.server/infrastructure/db/client";
import { activityLogs, jobs, mailOutbox, rateLimits, verificationCodes } from "~/.server/infrastructure/db/schema";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { action as forgotAction } from "~/routes/auth/forgot-password";
import { formRequest, run } from "../support/http";
import { createVerifiedUser, latestCodeFor } from "../support/accounts";

registerJobHandlers();

/** What a forgot-password request left in the database, with the e-mail address taken out. */
async function footprint(email: string) {
  const strip = (value: unknown) => JSON.stringify(value).replaceAll(email.toLowerCase(), "<email>").replaceAll(email, "<email>");
  return {
    mails: (await db().select().from(mailOutbox)).length,
    codes: (await db().select().from(verificationCodes)).length,
    activity: (await db().select().from(activityLogs)).length,
    limits: (await db().select({ key: rateLimits.key, hits: rateLimits.hits }).from(rateLimits)).map((r) => strip(r)).sort(),
    jobs: (await db().select({ queue: jobs.queue, payload: jobs.payload }).from(jobs)).map((j) => strip(j)),
  };
}

describe("forgot-password request", () => {
  it("does the same work on the request for a known and an unknown e-mail, and mails only in the job", async () => {
    const known = await createVerifiedUser();
    const before = await footprint(known.email);
    const knownAnswer = await run(forgotAction, formRequest("/forgot-password", { email: known.email }));
    const afterKnown = await footprint(known.email);
    expect(afterKnown.mails).toBe(before.mails);
    expect(afterKnown.codes).toBe(before.codes);
    expect(afterKnown.activity).toBe(before.activity);

    await db().delete(rateLimits);
    await db().delete(jobs);
    const unknownEmail = "nobody-here@example.co.ke";
    const unknownAnswer = await run(forgotAction, formRequest("/forgot-password", { email: unknownEmail }));
    const afterUnknown = await footprint(unknownEmail);
    expect(unknownAnswer.status).toBe(knownAnswer.status);
    expect(unknownAnswer.location).toBe(knownAnswer.location);
    expect({ limits: afterUnknown.limits, jobs: afterUnknown.jobs }).toEqual({ limits: afterKnown.limits, jobs: afterKnown.jobs });

    // The job does the lookup: nothing for the unknown address.
    await drainJobs();
    expect(await db().select().from(mailOutbox)).toHaveLength(0);
    // The job ran to the end (finished jobs are kept a while, decision 015).
    expect((await db().select().from(jobs)).map((job) => ({ finished: job.finishedAt !== null, failed: job.failedAt }))).toEqual([
      { finished: true, failed: null },
    ]);
  });

  it("mails the reset code from the job to an existing account, once per resend window", async () => {
    const known = await createVerifiedUser();
    await run(forgotAction, formRequest("/forgot-password", { email: known.email.toUpperCase() }));
    await run(forgotAction, formRequest("/forgot-password", { email: known.email }));
    await drainJobs();
    const mails = await db().select().from(mailOutbox);
    expect(mails.map((m) => m.toAddress)).toEqual([known.email]);
    expect(await latestCodeFor(known.email)).toMatch(/^\d{6}$/);
    const actions = (await db().select().from(activityLogs)).map((l) => l.action);
    expect(actions).toEqual(["Password reset requested"]);
  });

  it("mails nothing to a suspended account", async () => {
    const suspended = await createVerifiedUser({ status: "suspended" });
    await run(forgotAction, formRequest("/forgot-password", { email: suspended.email }));
    await drainJobs();
    expect(await db().select().from(mailOutbox)).toHaveLength(0);
  });
});
