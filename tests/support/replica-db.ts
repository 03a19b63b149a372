import { afterAll, beforeAll, expect, vi } from "vitest";
import { closeDatabase, openDatabase } from "~/.server/infrastructure/db/client";
import { measureReplica, replicaStatus } from "~/.server/infrastructure/db/replica";
import { startReplicatedClusters, type ReplicatedClusters } from "./replica";

// Jumbe opened on a replicated pair of tests/support/replica.ts (kept apart from it: bench/fault-runs.ts
// starts the clusters outside the test runner).

/** This process's database opened on the pair's primary, its heavy reads on the standby while it lags less than `maxLagMs`. */
export async function openOnReplicatedClusters(clusters: ReplicatedClusters, maxLagMs: number) {
  await closeDatabase();
  await openDatabase({ databaseUrl: clusters.primaryUrl, poolSize: 4, replica: { url: clusters.standbyUrl, maxLagMs } });
}

/** Waits until the standby serves reads with nothing left to replay. */
export async function standbyCaughtUp() {
  await vi.waitFor(
    async () => {
      await measureReplica();
      expect(replicaStatus()).toMatchObject({ state: "serving", lagBytes: 0 });
    },
    { timeout: 60_000, interval: 100 },
  );
}

/**
 * The file's own replicated pair in place of the file's database (migrated on the primary, streamed
 * to the standby), Jumbe opened on both with a 60 s lag limit; gone after the file.
 */
export function replicatedPairForFile() {
  let clusters: ReplicatedClusters | undefined;
  const pair = {
    get clusters() {
      if (!clusters) throw new Error("The replicated pair is not started yet.");
      return clusters;
    },
    open: (maxLagMs: number) => openOnReplicatedClusters(pair.clusters, maxLagMs),
    caughtUp: standbyCaughtUp,
  };
  beforeAll(async () => {
    clusters = await startReplicatedClusters();
    await pair.open(60_000);
    await standbyCaughtUp();
  }, 300_000); // the clusters' starts may take minutes on a loaded machine (replica.ts)
  afterAll(async () => {
    await closeDatabase();
    clusters?.destroy();
  });
  return pair;
}
