// The floor for Jumbe's HTTP answers: a plain node:http server in its own process. It reads the
// whole body of any request and answers 200 "OK" (POST /webhooks/whatsapp, no signature check, no
// database), or, for `?bytes=N`, N bytes of text/html (bench/pages.mjs: a body the size of a page).
// Driven with the same requests and connections as Jumbe, it shows what Node's HTTP handling and
// the load generator cost here.
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
  const server = http.createServer((req, res) => {
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
  const stop = () => server.close(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

/** Starts the bare server as a child process; resolves to { baseUrl, pid, stop }. */
export function startBareServer() {
  return startListeningChild(self, { name: "the bare server" });
}

if (process.argv[1] && path.resolve(process.argv[1]) === self) serve();
