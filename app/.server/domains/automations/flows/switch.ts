import type * as z from "zod/mini";
import { m } from "~/paraglide/messages";
import { actorOf, intent } from "../../auth";
import { redirectWithToast } from "../../../infrastructure/http/toast";
import { setFlowEnabled } from "./store";

/**
 * The switch that turns a flow on or off, on the flows list and on the flow's own page: one intent
 * for the `enable` and `disable` buttons, the flow named by `flowOf` (the posted id, or the page's),
 * back to `back` with the toast that says which.
 */
export function flowSwitch<Schema extends z.ZodMiniType>(
  args: { request: Request; context?: unknown },
  schema: Schema,
  flowOf: (value: z.output<Schema>) => string,
  back: string,
) {
  return intent(schema, async ({ value, user, intent: posted }) => {
    const flow = await setFlowEnabled(actorOf(args, user), flowOf(value), posted === "enable");
    return redirectWithToast(
      back,
      "success",
      posted === "enable" ? m.automations_flows_turned_on({ name: flow.name }) : m.automations_flows_turned_off({ name: flow.name }),
    );
  });
}
