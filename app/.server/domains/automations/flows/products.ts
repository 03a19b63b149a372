import { log } from "../../../infrastructure/log";
import { isRefusal } from "../../../infrastructure/refusal";
import type { OutboundContent } from "../../messaging";
import { checkProductChoice, productMessageIfSendable } from "../../shop";
import type { FlowReply } from "./engine";
import { refuseFlow, type FlowStep } from "./steps";

/**
 * A flow's `products` step (issue 76, decision 143): checked against the organisation's catalog when
 * the draft is saved, and made into WhatsApp's product message when it is sent, so a product removed
 * or unsynced since is left out rather than refused by Meta.
 */

/** A step as its fields, whatever order they were kept in (jsonb keeps keys in an order of its own). */
const fieldsOf = (step: FlowStep) => JSON.stringify(Object.entries(step).sort(([a], [b]) => a.localeCompare(b)));

/** The shop's field, as the step's. */
const STEP_FIELD: Record<string, string> = { products: "productIds", productHeader: "header", productBody: "text", productKind: "kind" };

/**
 * The products steps that are new or changed since `before` (the draft as stored): every product they
 * name is one the catalog holds now (another organisation's, unknown or unsynced: 400 at
 * `steps[i].productIds`). Steps left as they were are not checked again, so a product unsynced later
 * does not stop the rest of the draft being edited; when it runs, it is left out.
 */
export async function checkStepProducts(organizationId: string, steps: readonly FlowStep[], before: readonly FlowStep[] = []) {
  for (const [i, step] of steps.entries()) {
    if (step.type !== "products") continue;
    const was = before.find((s) => s.id === step.id);
    if (was && fieldsOf(was) === fieldsOf(step)) continue;
    try {
      await checkProductChoice(organizationId, { kind: step.kind, productIds: step.productIds, header: step.header, body: step.text });
    } catch (error) {
      if (!isRefusal(error, "shop")) throw error;
      throw refuseFlow(400, error.message, `steps[${i}].${STEP_FIELD[error.field ?? ""] ?? "productIds"}`);
    }
  }
}

/** A turn's replies as messages to queue: each products reply read from the catalog now, or left out when nothing of it is left. */
export async function flowReplies(organizationId: string, replies: readonly FlowReply[]): Promise<OutboundContent[]> {
  const contents: OutboundContent[] = [];
  for (const reply of replies) {
    if (reply.kind !== "products") {
      contents.push(reply);
      continue;
    }
    const interactive = await productMessageIfSendable(organizationId, reply.request);
    if (interactive) contents.push({ kind: "interactive", interactive });
    else log().info({ organizationId }, "flow products step: none of its products is in the catalog now, the flow goes on without it");
  }
  return contents;
}
