import { accessSync, constants } from "node:fs";
import net from "node:net";
import path from "node:path";

/**
 * What the tests start beside Jumbe (nginx, PgBouncer): Debian's binary in /usr/sbin, or the first
 * executable of that name on PATH; undefined when there is none.
 */
export function findExecutable(name: string): string | undefined {
  const candidates = [`/usr/sbin/${name}`, ...(process.env.PATH ?? "").split(":").map((dir) => path.join(dir, name))];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** A loopback port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
