import { describe, expect, it } from "vitest";
import { endLiveStreams, liveStream, openLiveStreams } from "./live-streams";

/** Reads a response's body to its end. */
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

  it("writes each event with its id and one data line a line", async () => {
    const browser = new AbortController();
    const response = liveStream(new Request("http://jumbe.test/chat/events", { signal: browser.signal }), (send) => {
      send({ event: "inbox", data: "first\nsecond", id: "42" });
      send({ event: "ping", data: "" });
      return () => {};
    });
    const body = readAll(response);
    browser.abort();
    expect(await body).toBe("id: 42\nevent: inbox\ndata: first\ndata: second\n\nevent: ping\ndata: \n\n");
  });

  it("forgets a stream that ends by itself, even while it starts (a campaign already over)", async () => {
    const cleanups: string[] = [];
    const response = liveStream(new Request("http://jumbe.test/messaging/campaigns/1/events"), (send, end) => {
      send({ event: "figures", data: "{}" });
      end();
      send({ event: "figures", data: "too late" });
      return () => cleanups.push("stopped");
    });
    expect(await readAll(response)).toBe("event: figures\ndata: {}\n\n");
    expect(cleanups).toEqual(["stopped"]);
    expect(openLiveStreams()).toBe(0);
  });

  it("stops quietly when the response's writer cancels it without the request's signal saying so", async () => {
    const cleanups: string[] = [];
    let send: (event: { event: string; data: string }) => void = () => {};
    const response = liveStream(new Request("http://jumbe.test/notifications/events"), (write) => {
      send = write;
      return () => cleanups.push("stopped");
    });
    await response.body!.cancel();
    expect(cleanups).toEqual(["stopped"]);
    expect(openLiveStreams()).toBe(0);
    // A keepalive's turn after that writes nothing and throws nothing (from a timer it would end the process).
    expect(() => send({ event: "ping", data: "" })).not.toThrow();
    expect(cleanups).toEqual(["stopped"]);
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
