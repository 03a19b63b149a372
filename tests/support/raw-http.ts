import http from "node:http";

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One request over node:http, which (unlike fetch) sends any method, header and path as given:
 * TRACE, odd content types, broken percent-encoding. A dropped connection is `status: 0`.
 */
export function rawRequest(
  base: string,
  request: RawRequest,
  options: { agent?: http.Agent; timeoutMs?: number } = {},
): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        headers: request.headers,
        agent: options.agent ?? false,
        insecureHTTPParser: true,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size <= 256 * 1024) chunks.push(chunk);
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error("timeout")));
    req.on("error", (error) => resolve({ status: 0, headers: {}, body: String(error) }));
    req.end(request.body);
  });
}

/**
 * Streams `total` bytes of `fill` as the body (chunked unless `declareLength`), without waiting
 * for the server to read it all: writing stops as soon as an answer arrives. Returns the answer and
 * how many bytes were handed to the socket by then.
 */
export function streamLargeBody(
  base: string,
  request: { method?: string; path: string; headers?: Record<string, string>; total: number; declareLength: boolean; fill?: string },
): Promise<RawResponse & { written: number }> {
  const url = new URL(base);
  const piece = Buffer.alloc(64 * 1024, request.fill ?? "a");
  return new Promise((resolve) => {
    let written = 0;
    let answered = false;
    const headers: Record<string, string> = { ...request.headers };
    if (request.declareLength) headers["content-length"] = String(request.total);
    const req = http.request(
      { host: url.hostname, port: url.port, method: request.method ?? "POST", path: request.path, headers, agent: false },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8"), written });
          req.destroy();
        });
      },
    );
    req.on("error", (error) => {
      if (!answered) resolve({ status: 0, headers: {}, body: String(error), written });
    });
    const pump = () => {
      while (!answered && written < request.total) {
        const size = Math.min(piece.length, request.total - written);
        written += size;
        if (!req.write(size === piece.length ? piece : piece.subarray(0, size))) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/** The resident memory of a process, from /proc (Linux). */
export async function residentBytes(pid: number) {
  const { readFile } = await import("node:fs/promises");
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb * 1024;
}
