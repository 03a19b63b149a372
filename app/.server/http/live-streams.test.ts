import { describe, expect, it } from "vitest";
import { endLiveStreams, liveStream, openLiveStreams } from "./live-streams";

/** Reads a response's body to its end; a body that is cut rather than ended throws. */
async function readAll(response: Response) {
  return await new Response(response.body).text();
}

function openStream(request = new Request("http://jumbe.test/notifications/events")) {
  const cleanups: string[] = [];
  const response = liveStream(request, (send) => {
    send({ event: "bell", data: '{"unread":1}' });
    return () => cleanups.push("stopped");
  });
  return { response, cleanups };
}

// One file, one order: a shutdown cannot be undone, so it comes last.
describe("live streams", () => {
  it("answers an event stream nginx must not buffer, and forgets it when the browser goes away", async () => {
    const browser = new AbortController();
    const { response, cleanups } = openStream(new Request("http://jumbe.test/chat/events", { signal: browser.signal }));
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    expect(openLiveStreams()).toBe(1);
    const body = readAll(response);
    browser.abort();
    expect(await body).toBe('event: bell\ndata: {"unread":1}\n\n');
    expect(cleanups).toEqual(["stopped"]);
    expect(openLiveStreams()).toBe(0);
  });

  it("forgets a stream that ends by itself (a campaign that has finished)", async () => {
    const response = liveStream(new Request("http://jumbe.test/messaging/campaigns/1/events"), (send, close) => {
      send({ event: "figures", data: "{}" });
      queueMicrotask(close);
      return () => {};
    });
    expect(await readAll(response)).toBe("event: figures\ndata: {}\n\n");
    expect(openLiveStreams()).toBe(0);
  });

  it("at shutdown ends every open stream properly, each cleaned up once, and ends any opened later at once", async () => {
    const streams = [openStream(), openStream(), openStream()];
    expect(openLiveStreams()).toBe(3);
    const bodies = streams.map(({ response }) => readAll(response));

    expect(endLiveStreams()).toBe(3);
    for (const body of await Promise.all(bodies)) expect(body).toBe('event: bell\ndata: {"unread":1}\n\n');
    for (const { cleanups } of streams) expect(cleanups).toEqual(["stopped"]);
    expect(openLiveStreams()).toBe(0);

    // A browser reconnecting over a kept-alive connection before the server has closed it.
    const late = openStream();
    expect(await readAll(late.response)).toBe('event: bell\ndata: {"unread":1}\n\n');
    expect(late.cleanups).toEqual(["stopped"]);
    expect(openLiveStreams()).toBe(0);
  });
});
