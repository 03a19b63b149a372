import { processState } from "../../infrastructure/process-state";

const { wakers } = processState("campaigns.feeder", () => ({ wakers: new Set<() => void>() }));

/** Tells this process's campaign feeder there is work (other instances find it by polling). */
export function wakeFeeder() {
  for (const wake of wakers) wake();
}

export function onFeederWake(wake: () => void) {
  wakers.add(wake);
  return () => wakers.delete(wake);
}
