import type { Response } from "express";

/**
 * The failures the integration sandboxes (HubSpot, Shopify, Google) answer on purpose: an expired
 * token (401), a rate limit (429), a server error (500) and a slow answer. Each sandbox answers them
 * in its own provider's shape. They come from a magic value in the request (`magic-401`,
 * `magic-429`, `magic-500`, `magic-slow` anywhere in the path, query or body) or from faults queued
 * through the control API for the next calls.
 */
export type Fault = "401" | "429" | "500" | "slow";

export const FAULTS: readonly Fault[] = ["401", "429", "500", "slow"];

/** The magic value in a request's text that asks for each fault. */
export const MAGIC_VALUES: Readonly<Record<Fault, string>> = {
  "401": "magic-401",
  "429": "magic-429",
  "500": "magic-500",
  slow: "magic-slow",
};

/** The fault a request's text (path, query and raw body) asks for, if any. */
export function magicFaultIn(text: string): Fault | undefined {
  const lower = text.toLowerCase();
  return FAULTS.find((fault) => lower.includes(MAGIC_VALUES[fault]));
}

export const isFault = (value: unknown): value is Fault => typeof value === "string" && (FAULTS as readonly string[]).includes(value);

/** Faults queued for the next API calls, oldest first. */
export class FaultQueue {
  private queue: Fault[] = [];

  add(fault: Fault, times = 1) {
    for (let i = 0; i < times; i++) this.queue.push(fault);
  }

  next(): Fault | undefined {
    return this.queue.shift();
  }

  pending(): Fault[] {
    return [...this.queue];
  }

  clear() {
    this.queue = [];
  }
}

/**
 * Slow answers: the response waits `ms` before `answer` runs, unless the client goes first (its
 * connection closes) or the sandbox closes (the connection is dropped).
 */
export class SlowAnswers {
  private held = new Set<{ res: Response; timer: ReturnType<typeof setTimeout> }>();

  constructor(private readonly ms: number) {}

  hold(res: Response, answer: () => void) {
    const entry = {
      res,
      timer: setTimeout(() => {
        this.held.delete(entry);
        if (!res.destroyed) answer();
      }, this.ms),
    };
    entry.timer.unref?.();
    this.held.add(entry);
    res.on("close", () => {
      clearTimeout(entry.timer);
      this.held.delete(entry);
    });
  }

  count() {
    return this.held.size;
  }

  close() {
    for (const entry of this.held) {
      clearTimeout(entry.timer);
      entry.res.destroy();
    }
    this.held.clear();
  }
}
