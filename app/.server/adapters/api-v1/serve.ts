import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express";
import { replicaConfigured, withReadScope } from "../../infrastructure/db/replica";
import { sendWebResponse, webRequestOf } from "../../infrastructure/http/web-request";
import { databaseGate } from "../../infrastructure/http/database-unavailable";
import { callerMeta, type RequestMeta } from "../../infrastructure/http/request-meta";
import { answerPublicApiErrorsWith } from "../../infrastructure/http/error-page";
import { handleApiV1 } from "./handle";
import { expressProblem } from "./errors";

// What Express answers on /api/v1 itself (413, 405, 503...) is the API's problem document. Set when
// this module loads: server.ts imports it in every mode, the API tests' server through serveApiV1.
answerPublicApiErrorsWith(expressProblem);

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

/** `/api/v1` and what is under it, as Express's `req.path` has it (still percent-encoded). */
const API_V1_PATH = /^\/api\/v1(?:\/|$)/;

/**
 * /api/v1 answered by Express (server.ts), without React Router's request pipeline: the API has its
 * own router (ENDPOINTS) and its key check, and React Router only passed its calls through (route
 * matching, three middlewares, the data strategy: about a tenth of a call's CPU). Other paths go on.
 * A middleware on the raw path, not an Express route: a route's parameters are decoded by Express,
 * which answers a malformed escape (`/api/v1/templates/%E0%A4%A`) 400 where the API answers
 * `not_found`. While the database is known to be down the gate answers 503 at once; an error the
 * API does not answer itself (the database gone mid-call) goes to Express's error handlers: 503.
 */
export function serveApiV1() {
  const gate = databaseGate();
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    if (!API_V1_PATH.test(req.path)) return next();
    gate(req, res, () => {
      // The address Express resolved (trust proxy: nginx's X-Forwarded-For), as React Router's context carries it.
      const meta = callerMeta(req.ip, req.get("user-agent"));
      // Inside the promise: a request the web Request refuses goes to Express's error handlers too.
      Promise.resolve()
        .then(() => answerApiV1(webRequestOf(req, res), meta))
        .then((response) => sendWebResponse(res, response))
        .catch(next);
    });
  };
}
