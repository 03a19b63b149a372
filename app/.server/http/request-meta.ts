export interface RequestMeta {
  ip: string;
  userAgent: string;
}

export interface JumbeLoadContext {
  clientIp?: string;
  cspNonce?: string;
}

/** Client IP as Express resolved it (trust proxy honours nginx's X-Forwarded-For), and the user agent. */
export function requestMeta(request: Request, context?: unknown): RequestMeta {
  const clientIp = (context as JumbeLoadContext | undefined)?.clientIp;
  return {
    ip: clientIp || "127.0.0.1",
    userAgent: (request.headers.get("user-agent") ?? "").slice(0, 512),
  };
}
