// The floor for Jumbe's HTTP answers: a plain node:http server in its own process. It reads the
// whole body of any request and answers 200 "OK" (POST /webhooks/whatsapp, no signature check, no
// database), or, for `?bytes=N`, N bytes of text/html (bench/pages.mjs: a body the size of a page).
// Driven with the same requests and connections as Jumbe, it shows what Node's HTTP handling and
// the load generator cost here.
//
// For the inbox's live stream (bench/inbox.mjs) it is also a bare relay: `GET /events` holds a
// server-sent events stream open, and `POST /relay` with a WhatsApp inbound-message delivery parses
// it and writes one `inbox` event carrying the message's text to every open stream before answering
// 200 (no signature check, no database): POST in, SSE out, in one process.
//
//   node bench/lib/bare-server.mjs        (prints {"port": N} on stdout once it is listening)
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startListeningChild } from "./child.mjs";

const self = fileURLToPath(import.meta.url);

function serve() {
  const bodies = new Map();
  const bodyOf = (bytes) => {
    if (!bodies.has(bytes)) bodies.set(bytes, Buffer.alloc(bytes, "x"));
    return bodies.get(bytes);
  };
  const streams = new Set();
  let eventId = 0;
  const server = http.createServer((req, res) => {
    if (req.method === "GET" && req.url.startsWith("/events")) {
      res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive" });
      res.write(": open\n\n");
      streams.add(res);
      res.on("close", () => streams.delete(res));
      return;
    }
    if (req.method === "POST" && req.url.startsWith("/relay")) {
      const chunks = [];
      req.on("data", (chunk) => chunks.push(chunk));
      req.on("end", () => {
        const value = JSON.parse(Buffer.concat(chunks).toString("utf8")).entry?.[0]?.changes?.[0]?.value ?? {};
        for (const message of value.messages ?? []) {
          const event = {
            id: ++eventId,
            kind: "message",
            conversationId: message.from,
            conversation: null,
            item: { type: "message", id: message.id, direction: "inbound", content: { kind: "text", text: message.text?.body ?? "" } },
          };
          const frame = `id: ${event.id}\nevent: inbox\ndata: ${JSON.stringify(event)}\n\n`;
          for (const stream of streams) stream.write(frame);
        }
        res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": "2" }).end("OK");
      });
      return;
    }
    // Consume every byte of the body, then answer, as the receiver does before its checks.
    req.on("data", () => {});
    req.on("end", () => {
      const query = req.url.indexOf("?bytes=");
      const bytes = query === -1 ? NaN : Number(req.url.slice(query + 7));
      if (Number.isInteger(bytes) && bytes >= 0 && bytes <= 2_000_000) {
        res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Content-Length": String(bytes) }).end(bodyOf(bytes));
        return;
      }
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": "2" }).end("OK");
    });
  });
  // Same keep-alive behaviour as Jumbe's server (Node's defaults).
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
  });
  const stop = () => {
    for (const stream of streams) stream.end();
    server.close(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

/** Starts the bare server as a child process; resolves to { baseUrl, pid, stop }. */
export function startBareServer() {
  return startListeningChild(self, { name: "the bare server" });
}

if (process.argv[1] && path.resolve(process.argv[1]) === self) serve();
