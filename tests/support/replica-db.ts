import { expect, vi } from "vitest";
import { closeDatabase, openDatabase } from "~/.server/infrastructure/db/client";
import { measureReplica, replicaStatus } from "~/.server/infrastructure/db/replica";
import type { ReplicatedClusters } from "./replica";

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
