// The floor for POST /webhooks/whatsapp: a plain node:http server in its own process that reads the
// whole body and answers 200 "OK" - no signature check, no database. Driven with the same payloads
// and connections as Jumbe, it shows what Node's HTTP handling and the load generator cost here.
//
//   node bench/lib/bare-server.mjs        (prints {"port": N} on stdout once it is listening)
import { spawn } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

const self = fileURLToPath(import.meta.url);

function serve() {
  const server = http.createServer((req, res) => {
    // Consume every byte of the body, then answer, as the receiver does before its checks.
    req.on("data", () => {});
    req.on("end", () => {
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

/** Starts the bare server as a child process; resolves to { baseUrl, stop }. */
export function startBareServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [self], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise((done) => child.once("exit", done));
    let buffered = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("the bare server did not start within 10 s"));
    }, 10_000);
    child.once("error", reject);
    child.stdout.on("data", (chunk) => {
      buffered += chunk.toString("utf8");
      const line = buffered.split("\n")[0];
      if (!buffered.includes("\n")) return;
      clearTimeout(timer);
      const { port } = JSON.parse(line);
      resolve({
        baseUrl: `http://127.0.0.1:${port}`,
        pid: child.pid,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill("SIGTERM");
            const force = setTimeout(() => child.kill("SIGKILL"), 5_000);
            await exited;
            clearTimeout(force);
          }
        },
      });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === self) serve();
