import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { keepIdleConnections } from "./test-server";

export interface ReceivedWebhook {
  body: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * A webhook receiver for the sandboxes' tests, on a free port: records every POST and answers the
 * queued statuses in order (then 200). `url` ends in `path`, as the product's receiver would.
 */
export async function startWebhookReceiver(path: string) {
  const received: ReceivedWebhook[] = [];
  const statuses: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
      res.writeHead(statuses.shift() ?? 200, { "Content-Type": "text/plain" }).end("ok");
    });
  });
  keepIdleConnections(server).listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    /** The next answers, in order; 200 after they run out. */
    answer: (...codes: number[]) => statuses.push(...codes),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
