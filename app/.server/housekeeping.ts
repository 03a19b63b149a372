import { deleteExpiredSessions } from "./auth/sessions";
import { deleteStaleCodes } from "./auth/codes";
import { deleteStaleRateLimits } from "./security/rate-limit";
import { log } from "./log";
import { databaseIsDown, noteDatabaseError } from "./db/availability";

/** Deletes expired sessions, dead codes and old rate-limit windows every ten minutes. Safe on every instance. */
export function startHousekeeping(everyMs = 10 * 60 * 1000) {
  const sweep = async () => {
    // A sweep skipped while the database is down is done by the next one (decision 011).
    if (databaseIsDown()) return;
    try {
      await deleteExpiredSessions();
      await deleteStaleCodes();
      await deleteStaleRateLimits();
    } catch (error) {
      if (!noteDatabaseError(error)) log().error({ err: error }, "housekeeping failed");
    }
  };
  const timer = setInterval(sweep, everyMs);
  timer.unref();
  void sweep();
  return () => clearInterval(timer);
}
