import type { GraphCaller } from "./graph-call";

/** The WhatsApp Business Account: its details, and the app's webhook subscription to it. */

export interface GraphWaba {
  id: string;
  name?: string;
  currency?: string;
  timezoneId?: string;
}

export function wabaCalls(graph: GraphCaller) {
  return {
    async getWaba(wabaId: string, token: string): Promise<GraphWaba> {
      const answer = await graph.call<{ id: string; name?: string; currency?: string; timezone_id?: string }>({
        step: "waba",
        method: "GET",
        path: encodeURIComponent(wabaId),
        query: { fields: "id,name,currency,timezone_id" },
        token,
        idempotent: true,
      });
      return { id: answer.id, name: answer.name, currency: answer.currency, timezoneId: answer.timezone_id };
    },

    async subscribeApp(wabaId: string, token: string) {
      await graph.call<{ success?: boolean }>({
        step: "subscribed_apps",
        method: "POST",
        path: `${encodeURIComponent(wabaId)}/subscribed_apps`,
        token,
        idempotent: true,
      });
    },

    async unsubscribeApp(wabaId: string, token: string) {
      await graph.call<{ success?: boolean }>({
        step: "subscribed_apps",
        method: "DELETE",
        path: `${encodeURIComponent(wabaId)}/subscribed_apps`,
        token,
        idempotent: true,
      });
    },
  };
}
