import { FLOW_MESSAGES, FLOW_STEPS_MAX } from "~/lib/schemas/flows";
import type { RuleActor } from "../rules";
import { getFlow, saveSteps, type FlowView } from "./store";
import { newStepId, refuseFlow, targetsOf, type StepInput } from "./steps";

/**
 * The builder's changes to a flow's draft, one step at a time: add or change a step, move it, delete
 * it. Each saves the whole list, checked again (steps.ts).
 */

/** Adds a step (last, or after `after`'s place) or changes the step with the same id. */
export async function saveStep(actor: RuleActor, flowId: string, step: Omit<StepInput, "id"> & { id?: string }): Promise<FlowView> {
  const flow = await getFlow(actor.organizationId, flowId);
  const steps: unknown[] = [...flow.steps];
  const at = step.id ? flow.steps.findIndex((s) => s.id === step.id) : -1;
  if (step.id && at < 0) throw refuseFlow(404, FLOW_MESSAGES.step);
  if (at >= 0) steps[at] = { ...step, id: step.id };
  else {
    if (flow.steps.length >= FLOW_STEPS_MAX) throw refuseFlow(409, FLOW_MESSAGES.stepsLimit, "form");
    steps.push({ ...step, id: newStepId(flow.steps) });
  }
  return saveSteps(actor, flowId, steps);
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
