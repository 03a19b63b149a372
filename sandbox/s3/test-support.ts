import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { keepIdleConnections, serveSandboxForTest } from "../test-server";
import { createS3Sandbox, type Credentials, type S3SandboxOptions } from "./index";

export const TEST_CREDENTIALS: Credentials = {
  accessKeyId: "JUMBETESTACCESSKEY01",
  secretAccessKey: "jumbe-sandbox-test-secret/0123456789abcdefGHIJ",
};
export const TEST_BUCKET = "jumbe-test";
export const TEST_REGION = "us-east-1";

export interface StartS3Options extends Partial<Omit<S3SandboxOptions, "buckets">> {
  /** A bucket made at start; default "jumbe-test"; null for none. */
  bucket?: string | null;
  /** Serve under this path prefix of an Express app (as Jumbe mounts its sandboxes) instead of at the root of its own port. */
  mount?: string;
}

/**
 * The S3 sandbox on a free loopback port for a test: `endpoint` is what the SDK's `endpoint` takes
 * (with `forcePathStyle: true`), `close` stops it and removes its directory when it made one.
 * `refuseConnections` stops listening (the port then refuses, as a store that is down) until
 * `acceptConnections` listens on the same port again.
 */
export async function startS3Sandbox(options: StartS3Options = {}) {
  const ownDir = options.dir === undefined ? mkdtempSync(path.join(os.tmpdir(), "jumbe-s3-")) : undefined;
  const bucket = options.bucket === undefined ? TEST_BUCKET : options.bucket;
  const credentials = options.credentials ?? [TEST_CREDENTIALS];
  const sandbox = createS3Sandbox({
    dir: options.dir ?? ownDir!,
    credentials,
    region: options.region ?? TEST_REGION,
    buckets: bucket === null ? [] : [bucket],
    now: options.now,
  });
  const removeDir = () => {
    if (ownDir) rmSync(ownDir, { recursive: true, force: true });
  };
  if (options.mount !== undefined) {
    const served = await serveSandboxForTest(options.mount, sandbox.handler);
    return {
      endpoint: served.base,
      bucket: bucket ?? undefined,
      credentials: credentials[0]!,
      region: sandbox.region,
      sandbox,
      async close() {
        await served.close();
        removeDir();
      },
    };
  }
  let server: Server = keepIdleConnections(createServer(sandbox.handler));
  const sockets = new Set<Socket>();
  const track = (s: Server) =>
    s.on("connection", (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
  track(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: bucket ?? undefined,
    credentials: credentials[0]!,
    region: sandbox.region,
    sandbox,
    refuseConnections: stop,
    async acceptConnections() {
      if (server.listening) return;
      server = keepIdleConnections(createServer(sandbox.handler));
      track(server);
      server.listen(port, "127.0.0.1");
      await once(server, "listening");
    },
    async close() {
      await stop();
      removeDir();
    },
  };
}
