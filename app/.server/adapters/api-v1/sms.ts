import type { z } from "zod";
import { apiSmsById, queueApiSms } from "../../domains/sms";
import { isRefusal } from "../../infrastructure/refusal";
import { ApiProblem } from "./problem";
import type { SmsSend } from "./sms-schemas";

export const SMS_NOT_FOUND = "No SMS of yours has this id.";

/** The SMS domain's refusal codes as the API's catalogue names them. */
const CODES: Record<string, string> = {
  not_connected: "sms_not_connected",
  opted_out: "opted_out",
  quiet_hours: "quiet_hours",
  balance: "insufficient_balance",
};

/** POST /api/v1/sms: queued as "Send as SMS" does, answered with its parts and price. */
export async function sendApiSms(organizationId: string, body: z.output<typeof SmsSend>) {
  try {
    return await queueApiSms(organizationId, body);
  } catch (error) {
    if (isRefusal(error, "sms") && CODES[error.code]) throw new ApiProblem(error.status, CODES[error.code]!, error.message);
    throw error;
  }
}

/** GET /api/v1/sms/{id}: its status and delivery report. */
export async function getApiSms(organizationId: string, id: string) {
  const found = await apiSmsById(organizationId, id);
  if (!found) throw new ApiProblem(404, "not_found", SMS_NOT_FOUND);
  return found;
}
