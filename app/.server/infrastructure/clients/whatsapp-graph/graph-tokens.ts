import type { GraphCaller } from "./graph-call";
import { GraphNetworkError } from "./graph-errors";

/** Graph's OAuth area: Embedded Signup's code exchanged for a token, and a token's debug information. */

export interface TokenExchange {
  accessToken: string;
  expiresIn?: number;
}

export interface TokenDebugInfo {
  isValid: boolean;
  appId?: string;
  type?: string;
  /** Unix seconds; 0 or absent means the token does not expire. */
  expiresAt?: number;
  scopes: string[];
  granularScopes: { scope: string; targetIds: string[] }[];
  error?: { code?: number; message?: string };
}

export function tokenCalls(graph: GraphCaller) {
  return {
    /** Embedded Signup: the 30-second code becomes the customer's business token. */
    async exchangeCode(code: string): Promise<TokenExchange> {
      const answer = await graph.call<{ access_token?: string; expires_in?: number }>({
        step: "oauth",
        method: "GET",
        path: "oauth/access_token",
        query: { client_id: graph.options.appId, client_secret: graph.options.appSecret, code },
        // A code is single-use: a second try after a lost answer could only fail.
        idempotent: false,
      });
      if (!answer.access_token) throw new GraphNetworkError("oauth", "Graph oauth answered without an access_token");
      return { accessToken: answer.access_token, expiresIn: typeof answer.expires_in === "number" ? answer.expires_in : undefined };
    },

    async debugToken(inputToken: string): Promise<TokenDebugInfo> {
      const answer = await graph.call<{ data?: Record<string, unknown> }>({
        step: "debug_token",
        method: "GET",
        path: "debug_token",
        query: { input_token: inputToken, access_token: `${graph.options.appId}|${graph.options.appSecret}` },
        idempotent: true,
      });
      const data = answer.data ?? {};
      const granular = Array.isArray(data.granular_scopes) ? (data.granular_scopes as { scope?: unknown; target_ids?: unknown }[]) : [];
      return {
        isValid: data.is_valid === true,
        appId: typeof data.app_id === "string" ? data.app_id : undefined,
        type: typeof data.type === "string" ? data.type : undefined,
        expiresAt: typeof data.expires_at === "number" ? data.expires_at : undefined,
        scopes: Array.isArray(data.scopes) ? data.scopes.filter((s): s is string => typeof s === "string") : [],
        granularScopes: granular.map((g) => ({
          scope: String(g.scope ?? ""),
          targetIds: Array.isArray(g.target_ids) ? g.target_ids.map(String) : [],
        })),
        error: data.error as TokenDebugInfo["error"],
      };
    },
  };
}
