import { createContext, RouterContextProvider } from "react-router";

/** What Express knows about a request that React Router's `Request` does not carry. */
export interface RequestInfo {
  /** The client's address as Express resolved it (`trust proxy` honours nginx's X-Forwarded-For). */
  clientIp: string;
  /** This response's CSP nonce; every inline script and the hydration scripts carry it. */
  cspNonce: string;
}

export const requestInfoContext = createContext<RequestInfo>({ clientIp: "127.0.0.1", cspNonce: "" });

/** The context every loader, action and middleware of one request shares (getLoadContext in server.ts). */
export function createRequestContext(info: Partial<RequestInfo> = {}) {
  const context = new RouterContextProvider();
  context.set(requestInfoContext, { clientIp: info.clientIp || "127.0.0.1", cspNonce: info.cspNonce ?? "" });
  return context;
}

/** The request's info; a context that is not a provider (a test calling a loader by hand) gets the defaults. */
export function requestInfoOf(context: unknown): RequestInfo {
  if (context instanceof RouterContextProvider) return context.get(requestInfoContext);
  return { clientIp: "127.0.0.1", cspNonce: "" };
}
