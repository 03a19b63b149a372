import { watchForHangs } from "./hang-watchdog";

// The unit and fidelity projects' setup: a worker stuck where no timer can fire ends within minutes,
// naming its test (tests/support/hang-watchdog.ts, decision 179).
watchForHangs();
