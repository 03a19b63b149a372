import { randomBytes } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import { createRequestHandler, type ServerBuild } from "react-router";
import { createRequestContext } from "./context";
import { log } from "../log";

/**
 * The public pages (landing, legal texts) are the same for every visitor but for the CSP nonce. Each
 * is rendered once per process (a process runs one build) with a placeholder nonce, and every
 * request gets that HTML with its own nonce put in: the 66 KB landing page costs a string join
 * instead of a React render. A visitor carrying a toast cookie (a one-time notice after signing
 * out) gets a fresh render, since the notice is part of the page. The pages must not depend on the
 * query string or on who asks; tests/integration/render-once.test.ts compares both renders.
 */
export function renderOnce(options: { paths: string[]; build: ServerBuild; origin: () => string; skip?: (req: Request) => boolean }) {
  const handler = createRequestHandler(options.build, "production");
  // Base64 like a real nonce, and long enough never to occur in a page by chance.
  const placeholder = `JumbeNonce${randomBytes(18).toString("base64url")}`;
  const pages = new Map<string, Promise<RenderedPage | null>>();

  const render = async (path: string): Promise<RenderedPage | null> => {
    const response = await handler(
      new Request(`${options.origin()}${path}`, { headers: { Accept: "text/html" } }),
      createRequestContext({ cspNonce: placeholder }),
    );
    const html = await response.text();
    if (response.status !== 200 || response.headers.has("set-cookie")) {
      log().warn({ path, status: response.status }, "page not kept for rendering once");
      return null;
    }
    const headers = [...response.headers].filter(([name]) => !["content-length", "content-encoding"].includes(name));
    return { parts: html.split(placeholder), headers };
  };

  return (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== "GET" && req.method !== "HEAD") || !options.paths.includes(req.path) || options.skip?.(req)) return next();
    let page = pages.get(req.path);
    if (!page) {
      page = render(req.path).catch((error: unknown) => {
        log().error({ err: error, path: req.path }, "rendering a page once failed");
        pages.delete(req.path);
        return null;
      });
      pages.set(req.path, page);
    }
    page.then((rendered) => {
      if (!rendered) return next();
      for (const [name, value] of rendered.headers) res.setHeader(name, value);
      // Says so in the network panel (and to tests): this answer was not rendered for this request.
      res.appendHeader("Server-Timing", 'page;desc="rendered once"');
      const nonce = String(res.locals.cspNonce ?? "");
      res.status(200).send(rendered.parts.join(nonce));
    }, next);
  };
}

interface RenderedPage {
  parts: string[];
  headers: [string, string][];
}
