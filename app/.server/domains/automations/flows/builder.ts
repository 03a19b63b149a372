import { FLOW_MESSAGES, FLOW_STEPS_MAX, NEW_TARGET, NEW_TARGET_TYPES, NEXT, type FlowStepType } from "~/lib/schemas/flows";
import type { RuleActor } from "../rules";
import { getFlow, saveSteps, type FlowView } from "./store";
import { newStepId, refuseFlow, targetsOf, type StepInput } from "./steps";

/**
 * The builder's changes to a flow's draft, one step at a time: add or change a step, move it, delete
 * it. Each saves the whole list, checked again (steps.ts).
 */

/** The fields a step leads on by. */
const TARGET_FIELDS = ["then", "else", "giveUpTo", "paid"] as const;

/** A step added for a target that asked for a new one: its id and the kind it is to become. */
export interface AddedStep {
  id: string;
  type: FlowStepType;
}

/** Whether the flow goes on past this step, to the one after it (a step added last would change what it does). */
function goesOn(step: { type?: unknown; then?: unknown; else?: unknown }) {
  if (step.type === "end" || step.type === "handover") return false;
  if (step.type === "payment") return (step as { paid?: unknown }).paid === NEXT || step.else === NEXT;
  return step.type !== "branch" || step.then === NEXT || step.else === NEXT;
}

/**
 * Adds a step (last) or changes the step with the same id. A target that asks for a new step
 * ("new:message", decision 113) gets one, added last as an end (so the draft stays whole and does
 * what it did) and filled in next: the answer says which (`added`). When the last step went on to the
 * next, an end goes before the new ones, so it still ends there.
 */
export async function saveStep(
  actor: RuleActor,
  flowId: string,
  step: Omit<StepInput, "id"> & { id?: string },
): Promise<FlowView & { added: AddedStep[] }> {
  const flow = await getFlow(actor.organizationId, flowId);
  const steps: Record<string, unknown>[] = [...flow.steps];
  const at = step.id ? flow.steps.findIndex((s) => s.id === step.id) : -1;
  if (step.id && at < 0) throw refuseFlow(404, FLOW_MESSAGES.step);
  const saved: Record<string, unknown> = { ...step, id: step.id ?? newStepId(flow.steps) };
  if (at >= 0) steps[at] = saved;
  else {
    if (flow.steps.length >= FLOW_STEPS_MAX) throw refuseFlow(409, FLOW_MESSAGES.stepsLimit, "form");
    steps.push(saved);
  }
  const asked = TARGET_FIELDS.filter((field) => typeof saved[field] === "string" && (saved[field] as string).startsWith(NEW_TARGET));
  const added: AddedStep[] = [];
  if (asked.length) {
    const last = steps.at(-1)!;
    const guard = goesOn(last) ? 1 : 0;
    if (steps.length + guard + asked.length > FLOW_STEPS_MAX) throw refuseFlow(409, FLOW_MESSAGES.stepsLimit, asked[0]);
    if (guard) steps.push({ id: newStepId(steps as { id: string }[]), type: "end" });
    for (const field of asked) {
      const type = (saved[field] as string).slice(NEW_TARGET.length);
      if (!(NEW_TARGET_TYPES as readonly string[]).includes(type)) throw refuseFlow(400, FLOW_MESSAGES.target, field);
      const id = newStepId(steps as { id: string }[]);
      steps.push({ id, type: "end" });
      saved[field] = id;
      added.push({ id, type: type as FlowStepType });
    }
  }
  return { ...(await saveSteps(actor, flowId, steps)), added };
}

/** Moves a step one place earlier or later. */
export async function moveStep(actor: RuleActor, flowId: string, stepId: string, direction: "up" | "down"): Promise<FlowView> {
  const flow = await getFlow(actor.organizationId, flowId);
  const steps = [...flow.steps];
  const at = steps.findIndex((s) => s.id === stepId);
  if (at < 0) throw refuseFlow(404, FLOW_MESSAGES.step);
  const to = direction === "up" ? at - 1 : at + 1;
  if (to < 0 || to >= steps.length) return flow;
  [steps[at], steps[to]] = [steps[to]!, steps[at]!];
  return saveSteps(actor, flowId, steps);
}

/** Deletes a step; refused while another step leads to it (said which, by its place). */
export async function deleteStep(actor: RuleActor, flowId: string, stepId: string): Promise<FlowView> {
  const flow = await getFlow(actor.organizationId, flowId);
  if (!flow.steps.some((s) => s.id === stepId)) throw refuseFlow(404, FLOW_MESSAGES.step);
  const leading = flow.steps.findIndex((s) => s.id !== stepId && targetsOf(s).some((t) => t.to === stepId));
  if (leading >= 0) throw refuseFlow(400, FLOW_MESSAGES.targetedBy(leading + 1), "form");
  return saveSteps(
    actor,
    flowId,
    flow.steps.filter((s) => s.id !== stepId),
  );
}
