import { afterAll, describe, expect, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { addNote } from "~/.server/domains/inbox/actions";
import { findConversation } from "~/.server/domains/inbox/list";
import type { InboxLiveEvent } from "~/lib/inbox";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { testDatabaseUrl } from "../support/database";
import { startClusterInstance, stopClusterInstances } from "../support/built-server";

// The inbox's live stream across instances: two built servers on one PostgreSQL database. A change
// made on one (or by any other process) reaches a browser's stream held on the other, through
// LISTEN/NOTIFY and the change log. Runs in the PostgreSQL pass of `npm test`, after the build.
const BUILD = "build/server/index.js";
const ready = !!process.env.TEST_DATABASE_URL && existsSync(BUILD);

const children: ChildProcess[] = [];
afterAll(() => stopClusterInstances(children));

async function startServer(databaseUrl: string) {
  const instance = await startClusterInstance(databaseUrl);
  children.push(instance.child);
  return instance.base;
}

/** An EventSource's view of /chat/events: the `inbox` events as they arrive. */
async function openStream(base: string, cookie: string, conversationId: string, after: number) {
  const controller = new AbortController();
  const response = await fetch(`${base}/chat/events?after=${after}&conversation=${conversationId}`, {
    headers: { cookie, accept: "text/event-stream" },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const events: InboxLiveEvent[] = [];
  const reader = response.body!.getReader();
  let buffer = "";
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += Buffer.from(value).toString("utf8");
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split("\n");
          if (lines.some((l) => l === "event: inbox"))
            events.push(
              JSON.parse(
                lines
                  .filter((l) => l.startsWith("data: "))
                  .map((l) => l.slice(6))
                  .join("\n"),
              ) as InboxLiveEvent,
            );
        }
      }
    } catch {
      // closed
    }
  })();
  return { events, close: () => controller.abort() };
}

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(check(), what).toBe(true);
}

describe.skipIf(!ready)("the inbox's live stream across server processes", () => {
  it("brings a change made on one server, or by any process, to a stream held on the other", async () => {
    const url = testDatabaseUrl()!;
    const account = await createVerifiedUser({ businessName: "Two Instances Ltd" });
    const cookie = await signedInCookie(account.email, account.password);
    const [contact] = await rawQuery<{ id: string }>(
      `insert into contacts (organization_id, name, phone, wa_id) values ($1, 'Wairimu Njoroge', '+254700123456', '254700123456') returning id`,
      [account.organization.id],
    );
    const [conversation] = await rawQuery<{ id: string }>(
      `insert into conversations (organization_id, phone_number_id, contact_id, last_inbound_at, last_message_at)
       values ($1, '106540352242922', $2, now(), now()) returning id`,
      [account.organization.id, contact!.id],
    );
    const [a, b] = await Promise.all([startServer(url), startServer(url)]);
    const onB = await openStream(b!, cookie, conversation!.id, 0);
    const onA = await openStream(a!, cookie, conversation!.id, 0);
    try {
      // A note posted to server A, as a browser without JavaScript posts it.
      const posted = await fetch(`${a}/chat/${conversation!.id}`, {
        method: "POST",
        headers: { cookie, origin: a!, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ intent: "note", note: "Asked for the M-Pesa paybill" }),
        redirect: "manual",
      });
      expect(posted.status).toBe(302);
      const noted = (events: InboxLiveEvent[], body: string) => events.some((e) => e.item?.type === "entry" && e.item.body === body);
      await until(() => noted(onB.events, "Asked for the M-Pesa paybill"), "server B's stream got server A's note");
      await until(() => noted(onA.events, "Asked for the M-Pesa paybill"), "server A's own stream got it too");
      // A change from another process altogether (here, the test's): both hear it.
      const row = (await findConversation(account.organization.id, conversation!.id))!;
      await addNote({ userId: account.user.id, organizationId: account.organization.id }, row, "Paid, receipt QJK4H7X2LM");
      await until(() => noted(onB.events, "Paid, receipt QJK4H7X2LM") && noted(onA.events, "Paid, receipt QJK4H7X2LM"), "both heard it");
      // Each change once per stream, in the log's order.
      const ids = onB.events.map((e) => e.id);
      expect(ids).toEqual([...new Set(ids)].sort((x, y) => x - y));
    } finally {
      onA.close();
      onB.close();
    }
  }, 120_000);
});
