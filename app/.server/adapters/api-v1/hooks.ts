import { z } from "zod";
import { isRefusal } from "../../infrastructure/refusal";
import {
  listRestHooks,
  REST_HOOK_EVENTS,
  REST_HOOKS_MAX,
  subscribeRestHook,
  unsubscribeRestHook,
  type RestHookView,
} from "../../domains/integrations/rest-hooks";
import { ApiProblem } from "./problem";

/**
 * REST hooks (issue 45): Zapier's and Make's subscribe and unsubscribe. A hook's deliveries are
 * webhooks out's (signed the same way, SSRF-checked at delivery, retried for three days); a 410 from
 * its target removes it. The send-message action is POST /api/v1/messages.
 */

export const HOOK_NOT_FOUND = "No REST hook with this id in your organisation: unknown, malformed, removed or another's.";

export const HookIdParams = z.object({ id: z.string().describe("The hook's id (a UUID) from subscribing or from the list.") });

const HookFields = {
  id: z.uuid(),
  event: z
    .enum(REST_HOOK_EVENTS)
    .describe(
      "message.received: a customer's message; message.status: one of yours delivered, read or failed; contact.created: a new contact (from WhatsApp, the page, an import or the API); conversation.handover: a conversation handed to a person.",
    ),
  targetUrl: z.string().describe("Where each event is POSTed."),
  createdAt: z.string(),
  lastDeliveryAt: z.string().nullable().describe("The last attempt to deliver to it; null before the first."),
  lastDeliveryStatus: z.int().nullable().describe("That attempt's HTTP status; null when no answer came."),
};

export const Hook = z.object(HookFields).meta({ id: "Hook" });

export const SubscribedHook = z
  .object({
    ...HookFields,
    secret: z
      .string()
      .describe(
        "The hook's signing secret (whsec_...), shown this once: each delivery carries webhook-id, webhook-timestamp and webhook-signature headers, as webhooks out do (Standard Webhooks).",
      ),
  })
  .meta({ id: "SubscribedHook" });

export const HookList = z.object({ data: z.array(Hook).describe(`At most ${REST_HOOKS_MAX}, oldest first.`) }).meta({ id: "HookList" });

export const HookCreate = z
  .object({
    targetUrl: z
      .string()
      .min(1)
      .max(2048)
      .describe("The URL to POST events to: https (http only outside production), no user name or password, public addresses only."),
    event: HookFields.event,
  })
  .strict()
  .meta({ id: "HookCreate" });

export const HOOK_CREATE_EXAMPLE = {
  targetUrl: "https://hooks.zapier.com/hooks/standard/1234567/abcdefg/",
  event: "message.received",
} satisfies z.input<typeof HookCreate>;

const apiHook = (hook: RestHookView) => ({ ...hook });

/** The domain's refusals as the API's problems. */
async function answer<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!isRefusal(error, "integration")) throw error;
    if (error.status === 404) throw new ApiProblem(404, "not_found", HOOK_NOT_FOUND);
    throw new ApiProblem(error.status, error.code, error.message, error.field);
  }
}

export async function listApiHooks(organizationId: string) {
  return { data: (await listRestHooks(organizationId)).map(apiHook) };
}

export async function subscribeApiHook(organizationId: string, apiKeyId: string, body: z.output<typeof HookCreate>) {
  return answer(subscribeRestHook({ organizationId, apiKeyId }, body));
}

export async function unsubscribeApiHook(organizationId: string, id: string) {
  // A malformed id is nobody's hook.
  if (!z.uuid().safeParse(id).success) throw new ApiProblem(404, "not_found", HOOK_NOT_FOUND);
  await answer(unsubscribeRestHook(organizationId, id));
  return undefined;
}
