import { describe, expect, it } from "vitest";
import type { ShouldRevalidateFunctionArgs } from "react-router";
import { shouldRevalidate as thread } from "./conversation";
import { shouldRevalidate as list } from "./index";
import { shouldRevalidate as shell } from "../layout";

const posted = (fields: Record<string, string>, actionResult?: unknown): ShouldRevalidateFunctionArgs => {
  const formData = new FormData();
  for (const [name, value] of Object.entries(fields)) formData.set(name, value);
  const url = new URL("http://jumbe.test/chat/7d6c");
  return {
    currentUrl: url,
    nextUrl: url,
    currentParams: {},
    nextParams: {},
    formMethod: "POST",
    formAction: url.pathname,
    formData,
    actionResult,
    actionStatus: 200,
    defaultShouldRevalidate: true,
  } as ShouldRevalidateFunctionArgs;
};

describe("what a conversation's posts read again", () => {
  it("reads nothing again for the typing signal: not the thread, not the list beside it, not the shell's counts", () => {
    const typing = posted({ intent: "typing" });
    expect([thread(typing), list(typing), shell(typing)]).toEqual([false, false, false]);
  });

  it("leaves a live reply to the stream, and reads the shell's counts again after a read mark", () => {
    const reply = posted({ intent: "send", live: "1" }, { sent: true });
    expect([thread(reply), list(reply)]).toEqual([false, false]);
    const read = posted({ intent: "read" });
    expect(list(read)).toBe(false);
    expect(shell(read)).toBe(true);
  });

  it("reads everything again after assigning or resolving", () => {
    const resolve = posted({ intent: "resolve" });
    expect([thread(resolve), list(resolve), shell(resolve)]).toEqual([true, true, true]);
  });
});
