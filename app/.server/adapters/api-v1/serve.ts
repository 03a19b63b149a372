import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express";
import { replicaConfigured, withReadScope } from "../../infrastructure/db/replica";
import { sendWebResponse, webRequestOf } from "../../infrastructure/http/web-request";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { handleApiV1 } from "./handle";

/**
 * A public API call with what React Router's root middleware gave it (decision 187): a read (GET,
 * HEAD) in a read scope, so its heavy reads (analytics) may use the replica. A key carries no
 * session, so there is no person's write mark to honour and no session copy to wait for; outside any
 * request's language the words are English (display-zone.ts), as the API's messages are documented.
 */
export function answerApiV1(request: Request, meta: RequestMeta): Promise<Response> {
  const call = () => handleApiV1(request, meta);
  const read = request.method === "GET" || request.method === "HEAD";
  return read && replicaConfigured() ? withReadScope(null, call) : call();
}

/**
 * /api/v1 answered by Express (server.ts), without React Router's request pipeline: the API has its
 * own router (ENDPOINTS) and its key check, and React Router only passed its calls through (route
 * matching, three middlewares, the data strategy: about a tenth of a call's CPU). An error it does not
 * answer itself (the database gone) goes to Express's error handlers: 503 with Retry-After.
 */
export function serveApiV1() {
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    const meta: RequestMeta = { ip: req.ip || "127.0.0.1", userAgent: (req.get("user-agent") ?? "").slice(0, 512) };
    // Inside the promise: a request the web Request refuses goes to Express's error handlers too.
    Promise.resolve()
      .then(() => answerApiV1(webRequestOf(req, res), meta))
      .then((response) => sendWebResponse(res, response))
      .catch(next);
  };
}
