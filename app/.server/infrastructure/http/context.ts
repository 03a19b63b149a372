import { createContext, RouterContextProvider } from "react-router";

/** What Express knows about a request that React Router's `Request` does not carry. */
export interface RequestInfo {
  /** The client's address as Express resolved it (`trust proxy` honours nginx's X-Forwarded-For). */
  clientIp: string;
  /** This response's CSP nonce; every inline script and the hydration scripts carry it. */
  cspNonce: string;
  /** A console request Express would have refused (cross-origin, not a form): the console's guard answers it. */
  consoleRefusal?: { status: number; message: string };
}

export const requestInfoContext = createContext<RequestInfo>({ clientIp: "127.0.0.1", cspNonce: "" });

/** The context every loader, action and middleware of one request shares (getLoadContext in server.ts). */
export function createRequestContext(info: Partial<RequestInfo> = {}) {
  const context = new RouterContextProvider();
  context.set(requestInfoContext, {
    clientIp: info.clientIp || "127.0.0.1",
    cspNonce: info.cspNonce ?? "",
    ...(info.consoleRefusal ? { consoleRefusal: info.consoleRefusal } : {}),
  });
  return context;
}

/** The request's info; a context that is not a provider (a test calling a loader by hand) gets the defaults. */
export function requestInfoOf(context: unknown): RequestInfo {
  if (context instanceof RouterContextProvider) return context.get(requestInfoContext);
  return { clientIp: "127.0.0.1", cspNonce: "" };
}

const requestMemo = createContext<Map<string, Promise<unknown>> | null>(null);

/**
 * `load()` once per request under `key`: loaders of one page run side by side, and a read two of
 * them need (the shell's notifications and the dashboard's Recent Activity) is sent once. Without
 * a request context (a test calling domain code directly) it simply loads.
 */
export function onceInRequest<T>(context: unknown, key: string, load: () => Promise<T>): Promise<T> {
  if (!(context instanceof RouterContextProvider)) return load();
  let memo = context.get(requestMemo);
  if (!memo) {
    memo = new Map();
    context.set(requestMemo, memo);
  }
  let found = memo.get(key) as Promise<T> | undefined;
  if (!found) {
    found = load();
    memo.set(key, found);
  }
  return found;
}
