import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";

/**
 * Express's request as a web `Request`, for a handler Express runs without React Router in between
 * (the public API, decision 187). As React Router's adapter builds it: the URL from the protocol and
 * host Express resolved (`trust proxy` honours nginx's X-Forwarded-Proto and -Host), every header
 * as sent, the body streamed (never read whole here: the handler's limits apply), and a signal that
 * aborts when the client goes before the answer is finished.
 */
export function webRequestOf(req: ExpressRequest, res: ExpressResponse): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const init: RequestInit & { duplex?: "half" } = { method: req.method, headers, signal: controller.signal };
  if (req.method !== "GET" && req.method !== "HEAD") {
    init.body = webStreamOf(Readable.toWeb(req));
    init.duplex = "half";
  }
  return new Request(`${req.protocol}://${req.host}${req.originalUrl}`, init);
}

/** A web `Response` sent through Express: status, headers (each Set-Cookie on its own), the body streamed. */
export async function sendWebResponse(res: ExpressResponse, response: Response) {
  if (res.destroyed || res.writableEnded) {
    await response.body?.cancel();
    return;
  }
  res.statusCode = response.status;
  if (response.statusText) res.statusMessage = response.statusText;
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader("Set-Cookie", cookies);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // The client went while the body streamed: nothing is left to answer.
      if (res.destroyed) return void (await reader.cancel());
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch (error) {
    if (res.destroyed || res.writableEnded) return;
    throw error;
  }
}

/** Once the response can take more (or has closed: the next write then sees it destroyed). */
function drained(res: ExpressResponse) {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Node's web stream is the one `Request` takes; their type declarations differ in name only. */
function webStreamOf(stream: NodeReadableStream): ReadableStream<Uint8Array> {
  return stream as ReadableStream<Uint8Array>;
}
