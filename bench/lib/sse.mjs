// A server-sent events client for benchmarks: one node:http request per stream on a socket of its
// own (as each browser tab holds one), the `id:`/`event:`/`data:` lines parsed into events as they
// arrive, each stamped with performance.now() when its blank line came in.
import http from "node:http";
import { performance } from "node:perf_hooks";

/**
 * Opens `url` with Accept: text/event-stream and `headers`. Resolves once the response's headers
 * are in: { status, headers, events, bytes, close(), closed } (a non-200 answer is read to its end
 * and resolves with status and body). `onEvent({ id, event, data, at })` is called for every event;
 * comments (`: …`) are skipped.
 */
export function openEventStream(url, { headers = {}, onEvent = () => {}, timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    const stream = { status: 0, headers: {}, events: 0, bytes: 0, closed: false, close: () => {} };
    const outgoing = http.request(url, { headers: { Accept: "text/event-stream", ...headers }, agent: false }, (response) => {
      clearTimeout(timer);
      stream.status = response.statusCode ?? 0;
      stream.headers = response.headers;
      stream.close = () => {
        stream.closed = true;
        response.destroy();
        outgoing.destroy();
      };
      response.on("close", () => (stream.closed = true));
      response.on("error", () => (stream.closed = true));
      if (stream.status !== 200 || !String(response.headers["content-type"] ?? "").startsWith("text/event-stream")) {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () => resolve({ ...stream, body: Buffer.concat(chunks).toString("utf8") }));
        return;
      }
      response.setEncoding("utf8");
      let buffer = "";
      response.on("data", (chunk) => {
        const at = performance.now();
        stream.bytes += chunk.length;
        buffer += chunk;
        for (;;) {
          const end = buffer.search(/\r?\n\r?\n/);
          if (end === -1) break;
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + (buffer[end] === "\r" ? 4 : 2));
          const event = parseBlock(block);
          if (!event) continue;
          stream.events++;
          onEvent({ ...event, at });
        }
      });
      resolve(stream);
    });
    const timer = setTimeout(() => outgoing.destroy(new Error(`no answer within ${timeoutMs / 1000} s: GET ${url}`)), timeoutMs);
    outgoing.on("error", (error) => {
      clearTimeout(timer);
      stream.closed = true;
      if (!stream.status) reject(error);
    });
    outgoing.end();
  });
}

/** One event's lines (the spec's field parsing, enough for Jumbe's streams); null for a comment only. */
export function parseBlock(block) {
  let id = null;
  let event = "message";
  const data = [];
  let any = false;
  for (const line of block.split(/\r?\n/)) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    any = true;
    if (field === "id") id = value;
    else if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return any ? { id, event, data: data.join("\n") } : null;
}

/** Opens `count` streams, `concurrency` at a time; resolves to the streams (failures counted, not thrown). */
export async function openManyEventStreams(count, open, { concurrency = 20 } = {}) {
  const streams = [];
  const failures = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      try {
        const stream = await open(index);
        if (stream.status === 200) streams.push(stream);
        else failures.push(`${stream.status}: ${String(stream.body ?? "").slice(0, 120)}`);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { streams, failures };
}
