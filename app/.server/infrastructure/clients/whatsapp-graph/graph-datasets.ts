import type { GraphCaller } from "./graph-call";

/**
 * The Conversions API for Business Messaging (issue 77, decision 156): a WABA's dataset (read first,
 * created only when it has none) and the conversion events sent to it. Plain Graph calls: the
 * Business SDK's user data has no `whatsapp_business_account_id` (reference commerce §2.4).
 */

export interface ConversionEvent {
  event_name: "LeadSubmitted" | "Purchase";
  /** Unix seconds. */
  event_time: number;
  event_id: string;
  action_source: "business_messaging";
  messaging_channel: "whatsapp";
  user_data: { whatsapp_business_account_id: string; ctwa_clid: string };
  custom_data?: { currency: string; value: number };
}

export interface EventsAnswer {
  events_received?: number;
  messages?: unknown[];
  fbtrace_id?: string;
}

export function datasetCalls(graph: GraphCaller) {
  return {
    /** The WABA's dataset ids (none yet: an empty list). */
    async listDatasets(wabaId: string, token: string): Promise<{ id: string; name?: string }[]> {
      const answer = await graph.call<{ data?: { id: string; name?: string }[] }>({
        step: "dataset",
        method: "GET",
        path: `${encodeURIComponent(wabaId)}/dataset`,
        token,
        idempotent: true,
      });
      return (answer.data ?? []).filter((d) => typeof d.id === "string");
    },

    async createDataset(wabaId: string, token: string, name: string): Promise<string> {
      // Not idempotent: a lost answer is not sent again (the next consent reads the list first).
      const answer = await graph.call<{ id: string }>({
        step: "dataset",
        method: "POST",
        path: `${encodeURIComponent(wabaId)}/dataset`,
        body: { dataset_name: name },
        token,
        idempotent: false,
      });
      return answer.id;
    },

    /** One request of events; Meta deduplicates by `event_id`, so a request in doubt may be sent again. */
    async sendConversionEvents(datasetId: string, token: string, events: readonly ConversionEvent[]): Promise<EventsAnswer> {
      return graph.call<EventsAnswer>({
        step: "dataset.events",
        method: "POST",
        path: `${encodeURIComponent(datasetId)}/events`,
        body: { data: events, partner_agent: "jumbe" },
        token,
        idempotent: false,
      });
    },
  };
}
