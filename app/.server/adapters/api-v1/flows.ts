import { z } from "zod";
import { isRefusal } from "../../infrastructure/refusal";
import {
  createFlow,
  deleteFlow,
  getFlow,
  listFlows,
  publishFlow,
  setFlowEnabled,
  updateFlow,
  type FlowView,
} from "../../domains/automations/flows/store";
import type { RuleActor } from "../../domains/automations/rules";
import {
  FLOW_IDLE_DEFAULT,
  FLOW_IDLE_MAX,
  FLOW_IDLE_MIN,
  FLOW_NAME_MAX,
  FLOW_STEP_TYPES,
  FLOW_STEPS_MAX,
  FLOW_TEXT_MAX,
  FLOWS_MAX,
} from "~/lib/schemas/flows";
import { ApiProblem } from "./problem";

/**
 * The chatbot flows' endpoints (issue 44): the same flows, checks and limits as the Automations
 * pages. A flow's steps are edited as a whole list (its draft); publishing makes the draft the live
 * version. The shapes check types only: what a step must be is the domain's check, answered 422
 * invalid_automation with the field (steps[2].choices).
 */

export const FLOW_NOT_FOUND = "No chatbot flow with this id in your organisation: unknown, malformed, deleted or another's.";

const STEPS_WORDS = `The steps in order, up to ${FLOW_STEPS_MAX}; each an object with type (${FLOW_STEP_TYPES.join(", ")}), an id (letters and digits, up to 16: given one when left out; steps that others lead to need theirs) and its own fields, as docs/api.md describes. Where a step leads (a question's giveUpTo, a branch's then and else) is another step's id, "next" or "end". Texts take {{variable}}, {{contact.name}} and {{http.field}}.`;

const FlowStep = z
  .object({ id: z.string().optional(), type: z.enum(FLOW_STEP_TYPES) })
  .catchall(z.unknown())
  .describe("One step: its type, its id and its type's fields.");

export const FlowIdParams = z.object({ id: z.string().describe("The flow's id (a UUID) from the list or from adding it.") });

export const Flow = z
  .object({
    id: z.uuid(),
    name: z.string(),
    status: z
      .enum(["draft", "live", "off"])
      .describe("draft: never published; live: new conversations start it; off: none start it, running ones finish."),
    liveVersion: z.int().nullable().describe("The published version new conversations start on; null until first published."),
    unpublished: z.boolean().describe("The draft differs from the live version (publish to make it live)."),
    idleMinutes: z.int(),
    idleText: z.string(),
    steps: z.array(FlowStep).describe("The draft's steps."),
    sessions: z.object({
      active: z.int().describe("Conversations in the flow now."),
      onOlderVersions: z.int().describe("Of those, the ones running on a version older than the live one."),
      completed: z.int(),
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Flow" });

export const FlowList = z.object({ data: z.array(Flow).describe(`At most ${FLOWS_MAX}, oldest first.`) }).meta({ id: "FlowList" });

const flowFields = {
  name: z.string().describe(`The flow's name, for you (up to ${FLOW_NAME_MAX} characters).`),
  idleMinutes: z
    .int()
    .describe(
      `Minutes without an answer before a conversation leaves the flow, ${FLOW_IDLE_MIN} to ${FLOW_IDLE_MAX}; ${FLOW_IDLE_DEFAULT} when not given.`,
    ),
  idleText: z
    .string()
    .describe(`Sent then, if the customer's 24-hour window is still open (up to ${FLOW_TEXT_MAX} characters); empty: nothing is sent.`),
  steps: z.array(FlowStep).describe(STEPS_WORDS),
};

export const FlowCreate = z
  .object({
    name: flowFields.name,
    idleMinutes: flowFields.idleMinutes.optional(),
    idleText: flowFields.idleText.optional(),
    steps: flowFields.steps.optional(),
  })
  .strict()
  .meta({ id: "FlowCreate" });

export const FlowUpdate = z
  .object({
    name: flowFields.name.optional(),
    idleMinutes: flowFields.idleMinutes.optional(),
    idleText: flowFields.idleText.optional(),
    steps: flowFields.steps.optional(),
    enabled: z.boolean().optional().describe("Turns a published flow on (live) or off."),
  })
  .strict()
  .meta({ id: "FlowUpdate" });

export const FLOW_CREATE_EXAMPLE: z.input<typeof FlowCreate> = {
  name: "Order status",
  idleMinutes: 30,
  idleText: "Tutaongea baadaye. Andika STATUS kuanza tena.",
  steps: [
    { id: "ask", type: "question", text: "Namba ya oda yako ni ipi?", input: "text", validate: "number", variable: "order" },
    { id: "look", type: "http", method: "GET", url: "https://shop.example.co.ke/api/orders/{{order}}" },
    {
      id: "check",
      type: "branch",
      source: "variable",
      key: "http.status",
      operator: "equals",
      value: "shipped",
      then: "sent",
      else: "person",
    },
    { id: "sent", type: "message", text: "Oda {{order}} iko njiani." },
    { id: "done", type: "end" },
    { id: "person", type: "handover" },
  ],
};
// Before its first publish a flow cannot be turned on: the example changes its idle time and message.
export const FLOW_UPDATE_EXAMPLE: z.input<typeof FlowUpdate> = {
  idleMinutes: 60,
  idleText: "Tumesimamisha mazungumzo haya. Andika MKOPO kuanza upya.",
};

const actorOf = (organizationId: string): RuleActor => ({ organizationId, userId: null });

const apiFlow = (flow: FlowView): z.input<typeof Flow> => ({
  id: flow.id,
  name: flow.name,
  status: flow.status,
  liveVersion: flow.liveVersion,
  unpublished: flow.unpublished,
  idleMinutes: flow.idleMinutes,
  idleText: flow.idleText,
  steps: flow.steps,
  sessions: { active: flow.activeSessions, onOlderVersions: flow.olderSessions, completed: flow.completedSessions },
  createdAt: flow.createdAt,
  updatedAt: flow.updatedAt,
});

/** The domain's refusals as the API's problems: not found, flow_limit, else invalid_automation with the body's field. */
async function answer<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!isRefusal(error, "automation")) throw error;
    if (error.status === 404) throw new ApiProblem(404, "not_found", FLOW_NOT_FOUND);
    if (error.status === 409) throw new ApiProblem(409, "flow_limit", error.message);
    const field = error.field && error.field !== "form" ? error.field : undefined;
    throw new ApiProblem(422, "invalid_automation", field ? `${field}: ${error.message}` : error.message, field);
  }
}

export async function listApiFlows(organizationId: string) {
  return { data: (await listFlows(organizationId)).map(apiFlow) };
}

export async function getApiFlow(organizationId: string, id: string) {
  return apiFlow(await answer(getFlow(organizationId, id)));
}

export async function createApiFlow(organizationId: string, body: z.output<typeof FlowCreate>) {
  return apiFlow(await answer(createFlow(actorOf(organizationId), body)));
}

/** PATCH: the fields given over the flow's draft, checked whole; then on or off. */
export async function updateApiFlow(organizationId: string, id: string, body: z.output<typeof FlowUpdate>) {
  const actor = actorOf(organizationId);
  const { enabled, ...draft } = body;
  let flow = await answer(getFlow(organizationId, id));
  if (Object.values(draft).some((value) => value !== undefined)) flow = await answer(updateFlow(actor, id, draft));
  if (enabled !== undefined) flow = await answer(setFlowEnabled(actor, id, enabled));
  return apiFlow(flow);
}

export async function publishApiFlow(organizationId: string, id: string) {
  return apiFlow(await answer(publishFlow(actorOf(organizationId), id)));
}

export async function deleteApiFlow(organizationId: string, id: string) {
  await answer(deleteFlow(actorOf(organizationId), id));
  return undefined;
}
