import { randomInt } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";

const SAVE_DEBOUNCE_MS = 200;
/**
 * A save waits at least this many times as long as the last one took: a state that grows (HubSpot's
 * communications, one per message a connected account logs) would otherwise be written whole every
 * 200 ms, and at 40,000 messages that took the whole core of the server the sandbox is mounted in (the
 * SMS fallback bench's campaign fell from 400 to 40 messages a second). Saving costs at most a
 * fiftieth of the time this way.
 */
const SAVE_SPACING = 50;

/**
 * A sandbox's state kept in one JSON file (DATA_DIR/sandbox/<name>.json), as the Meta sandbox keeps
 * its own: read once at start, written a moment after each change (a temporary file, then a rename),
 * the moment longer as the state grows (SAVE_SPACING).
 * An unreadable file is moved aside and the sandbox starts afresh rather than refusing to start.
 * Without a path nothing is read or written: the state lives in memory.
 */
export class StateFile<T> {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private lastSaveMs = 0;

  constructor(
    private readonly file: string | undefined,
    private readonly label: string,
    private readonly snapshot: () => T,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** How long the next save waits after a change. */
  get delayMs() {
    return Math.max(SAVE_DEBOUNCE_MS, Math.ceil(this.lastSaveMs * SAVE_SPACING));
  }

  /** The saved state, when there is a file whose content `accepts`. */
  load(accepts: (value: unknown) => value is T): T | undefined {
    if (!this.file || !existsSync(this.file)) return undefined;
    try {
      const parsed = JSON.parse(readFileSync(this.file, "utf8")) as unknown;
      if (accepts(parsed)) return parsed;
      throw new Error("unknown format");
    } catch (error) {
      const aside = `${this.file}.unreadable-${Date.now()}`;
      try {
        renameSync(this.file, aside);
      } catch {
        /* left where it is */
      }
      console.warn(`[${this.label} sandbox] ignoring unreadable state file ${this.file} (moved to ${aside}):`, error);
      return undefined;
    }
  }

  /** Schedules a save; every change calls this. */
  changed() {
    if (!this.file || this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      try {
        this.saveNow();
      } catch (error) {
        console.warn(`[${this.label} sandbox] could not write ${this.file}:`, error);
      }
    }, this.delayMs);
    this.timer.unref?.();
  }

  saveNow() {
    if (!this.file) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const started = this.clock();
    mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.${randomInt(1e9)}.tmp`;
    // Without indentation: written for the sandbox to read back, and a third quicker to write.
    writeFileSync(tmp, JSON.stringify(this.snapshot()), { mode: 0o600 });
    renameSync(tmp, this.file);
    this.lastSaveMs = this.clock() - started;
  }

  /** Writes what is pending, then stops saving. */
  close() {
    if (this.closed) return;
    if (this.timer) this.saveNow();
    this.closed = true;
  }
}
