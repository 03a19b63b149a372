import type { Request } from "express";
import { fail, ok, type GraphResult } from "./graph-common";
import { newTraceId, randomNumericId, unixSeconds } from "./util";

/**
 * The Conversions API for Business Messaging (Jumbe issue 77, reference commerce §2.3, §2.4): a
 * WABA's dataset (`GET` and `POST /{waba_id}/dataset`) and the conversion events sent to it
 * (`POST /{dataset_id}/events`), refused as Meta refuses them: the whole request when one event is
 * wrong. Accepted events are recorded once per dataset, event name and `event_id` (Meta deduplicates
 * on them), for tests and the console's list.
 */

export interface Dataset {
  id: string;
  wabaId: string;
  name: string;
  createdAt: number;
}

export interface ReceivedConversion {
  datasetId: string;
  wabaId: string;
  eventName: string;
  eventId: string | null;
  eventTime: number;
  ctwaClid: string;
  value: number | null;
  currency: string | null;
  receivedAt: string;
}

/** Meta's business-messaging event names (reference commerce §2.4); others answer subcode 2804066. */
export const CONVERSION_EVENT_NAMES = ["LeadSubmitted", "Purchase", "AddToCart", "InitiateCheckout", "ViewContent"] as const;
const MAX_EVENTS = 1000;
const SEVEN_DAYS_S = 7 * 24 * 60 * 60;
/** A little clock skew is forgiven; further in the future is refused. */
const FUTURE_SLACK_S = 60;

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => !!value && typeof value === "object" && !Array.isArray(value);

const invalid = (details: string) => fail(400, 100, "(#100) Invalid parameter", { type: "OAuthException", errorData: { details } });
const wrongEventName = (name: string) =>
  fail(400, 100, "Messaging Event Invalid Event Type", {
    subcode: 2804066,
    userTitle: "Messaging Event Invalid Event Type",
    userMsg: `The event name ${name} is not supported for business messaging events.`,
  });

export class DatasetDesk {
  private readonly datasets = new Map<string, Dataset>();
  private readonly received: ReceivedConversion[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly now: () => number) {}

  get(id: string) {
    return this.datasets.get(id);
  }

  ofWaba(wabaId: string) {
    return [...this.datasets.values()].filter((d) => d.wabaId === wabaId);
  }

  list(wabaId: string): GraphResult {
    return ok({ data: this.ofWaba(wabaId).map((d) => ({ id: d.id, name: d.name })) });
  }

  /** One dataset a WABA: a second POST answers the same id (AWS calls it "creates or retrieves"). */
  create(wabaId: string, req: Request): GraphResult {
    const body = isObject(req.body) ? req.body : {};
    const name = body.dataset_name ?? req.query.dataset_name;
    if (typeof name !== "string" || !name.trim()) return invalid("dataset_name is required");
    const existing = this.ofWaba(wabaId)[0];
    if (existing) return ok({ id: existing.id });
    const id = randomNumericId();
    this.datasets.set(id, { id, wabaId, name: name.trim().slice(0, 200), createdAt: this.now() });
    return ok({ id });
  }

  events(dataset: Dataset, req: Request): GraphResult {
    const body = isObject(req.body) ? req.body : {};
    const data = body.data;
    if (!Array.isArray(data) || !data.length) return invalid("data must be a non-empty array of events");
    if (data.length > MAX_EVENTS) return invalid(`data may hold at most ${MAX_EVENTS} events`);
    const nowS = unixSeconds(this.now());
    const checked: ReceivedConversion[] = [];
    for (const [i, event] of data.entries()) {
      const result = this.check(dataset, event, i, nowS);
      if ("status" in result) return result;
      checked.push(result);
    }
    for (const event of checked) {
      const key = `${dataset.id}\u0000${event.eventName}\u0000${event.eventId ?? `${event.ctwaClid}:${event.eventTime}`}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.received.push(event);
    }
    return ok({ events_received: checked.length, messages: [], fbtrace_id: newTraceId() });
  }

  /** One event as Meta reads it, or the refusal of the whole request. */
  private check(dataset: Dataset, event: unknown, i: number, nowS: number): ReceivedConversion | GraphResult {
    if (!isObject(event)) return invalid(`data[${i}] must be an object`);
    const name = event.event_name;
    if (typeof name !== "string" || !name) return invalid(`data[${i}].event_name is required`);
    if (!(CONVERSION_EVENT_NAMES as readonly string[]).includes(name)) return wrongEventName(name);
    if (event.action_source !== "business_messaging") return invalid(`data[${i}].action_source must be business_messaging`);
    if (event.messaging_channel !== "whatsapp") return invalid(`data[${i}].messaging_channel must be whatsapp`);
    const time = event.event_time;
    if (typeof time !== "number" || !Number.isInteger(time)) return invalid(`data[${i}].event_time must be a Unix time in seconds`);
    if (time < nowS - SEVEN_DAYS_S) return invalid(`data[${i}].event_time is more than 7 days in the past`);
    if (time > nowS + FUTURE_SLACK_S) return invalid(`data[${i}].event_time is in the future`);
    const user = isObject(event.user_data) ? event.user_data : {};
    const waba = user.whatsapp_business_account_id;
    if (typeof waba !== "string" || !waba) return invalid(`data[${i}].user_data.whatsapp_business_account_id is required`);
    if (waba !== dataset.wabaId) return invalid(`data[${i}].user_data.whatsapp_business_account_id is not the dataset's account`);
    const clid = user.ctwa_clid;
    if (typeof clid !== "string" || !clid) return invalid(`data[${i}].user_data.ctwa_clid is required`);
    const custom = event.custom_data;
    let value: number | null = null;
    let currency: string | null = null;
    if (custom !== undefined || name === "Purchase") {
      if (!isObject(custom)) return invalid(`data[${i}].custom_data with currency and value is required for ${name}`);
      if (typeof custom.currency !== "string" || !/^[A-Z]{3}$/.test(custom.currency))
        return invalid(`data[${i}].custom_data.currency must be a three-letter ISO 4217 code`);
      if (typeof custom.value !== "number" || !Number.isFinite(custom.value) || custom.value < 0)
        return invalid(`data[${i}].custom_data.value must be a number of 0 or more`);
      value = custom.value;
      currency = custom.currency;
    }
    const eventId = typeof event.event_id === "string" && event.event_id ? event.event_id : null;
    return {
      datasetId: dataset.id,
      wabaId: dataset.wabaId,
      eventName: name,
      eventId,
      eventTime: time,
      ctwaClid: clid,
      value,
      currency,
      receivedAt: new Date(this.now()).toISOString(),
    };
  }

  /** What the sandbox accepted, oldest first. */
  receivedEvents(): ReceivedConversion[] {
    return this.received.map((e) => ({ ...e }));
  }

  reset() {
    this.datasets.clear();
    this.received.length = 0;
    this.seen.clear();
  }
}
