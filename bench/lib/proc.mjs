// CPU time from Linux's /proc: per process (/proc/<pid>/stat) and for the whole machine (/proc/stat).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

let clockTicks;
function ticksPerSecond() {
  clockTicks ??= (() => {
    try {
      return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      return 100;
    }
  })();
  return clockTicks;
}

/** The fields of /proc/<pid>/stat after "(comm)", which may hold spaces: [0] is field 3 (state). */
function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid) {
  const fields = statFields(pid);
  // utime is field 14, stime field 15.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
}

/**
 * CPU seconds (user + system) of the process's children that have exited and been waited for: a
 * PostgreSQL backend that ended during a measurement is counted here, in its postmaster's figures.
 */
export function reapedChildrenSeconds(pid) {
  const fields = statFields(pid);
  // cutime is field 16, cstime field 17.
  return (Number(fields[13]) + Number(fields[14])) / ticksPerSecond();
}

/** Processes whose parent is `parent`. */
export function childProcesses(parent) {
  const children = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Field 4: the parent's pid.
      if (Number(statFields(name)[1]) === parent) children.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** CPU seconds of each process in `pids` that still exists, as a Map. */
export function cpuOf(pids) {
  const seconds = new Map();
  for (const pid of pids) {
    try {
      seconds.set(pid, cpuSeconds(pid));
    } catch {
      // exited
    }
  }
  return seconds;
}

/** CPU seconds the processes used between two cpuOf() readings (a process gone by `after` is missed). */
export function cpuBetween(before, after) {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/** CPU seconds every CPU of the machine has spent busy (not idle, not waiting for I/O) so far. */
export function machineBusySeconds() {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return (user + nice + system + irq + softirq + (steal || 0)) / ticksPerSecond();
}

/** The process's resident memory (VmRSS in /proc/<pid>/status) in KiB; null when it cannot be read. */
export function rssKiB(pid) {
  try {
    const match = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+)\s+kB/m);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
