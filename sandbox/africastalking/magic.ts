/**
 * The sandbox's magic numbers (documented in sandbox/README.md): Kenyan numbers a tester sends to for
 * each refusal AT answers per recipient at send time, and for each delivery report outcome.
 */
export interface SendRefusal {
  statusCode: number;
  status: string;
}

/** Refused at send time: the recipient's statusCode/status; no cost, no delivery report. */
export const SEND_REFUSALS: Record<string, SendRefusal> = {
  "+254700000401": { statusCode: 401, status: "RiskHold" },
  "+254700000403": { statusCode: 403, status: "InvalidPhoneNumber" },
  "+254700000404": { statusCode: 404, status: "UnsupportedNumberType" },
  "+254700000406": { statusCode: 406, status: "UserInBlacklist" },
  "+254700000407": { statusCode: 407, status: "CouldNotRoute" },
  "+254700000500": { statusCode: 500, status: "InternalServerError" },
  "+254700000501": { statusCode: 501, status: "GatewayError" },
  "+254700000502": { statusCode: 502, status: "RejectedByGateway" },
};

/**
 * Accepted and sent (charged, its delivery reports follow) but the HTTP answer comes only after
 * `slowAnswerMs`: a client that gives up first cannot know whether AT sent it (issue 77, decision 150).
 */
export const SLOW_ANSWER_NUMBER = "+254700001500";

/** AT's documented `failureReason` values, in the order of their magic numbers (+2547000011 01..09). */
export const FAILURE_REASONS = [
  "InsufficientCredit",
  "InvalidLinkId",
  "UserIsInactive",
  "UserInBlackList",
  "UserAccountSuspended",
  "NotNetworkSubscriber",
  "UserNotSubscribedToProduct",
  "UserDoesNotExist",
  "DeliveryFailure",
] as const;

export interface ReportStep {
  status: "Sent" | "Submitted" | "Buffered" | "Rejected" | "Success" | "Failed";
  failureReason?: string;
  /** Held until the late delay passes (or a flush). */
  late?: boolean;
}

/** The delivery reports an accepted message gets, in order. Every other number: one Success. */
export function reportSteps(number: string): ReportStep[] {
  const failed = /^\+2547000011(0[1-9])$/.exec(number);
  if (failed) return [{ status: "Failed", failureReason: FAILURE_REASONS[Number(failed[1]) - 1] }];
  if (number === "+254700001200") return [{ status: "Rejected", failureReason: "DeliveryFailure" }];
  if (number === "+254700001300") return [{ status: "Buffered" }, { status: "Success" }];
  if (number === "+254700001400") return [{ status: "Success", late: true }];
  return [{ status: "Success" }];
}

/**
 * Kenyan mobile network codes by prefix (Safaricom 63902, Airtel 63903, Telkom 63907, Equitel 63999);
 * an unknown prefix is Safaricom's, the commonest.
 */
export function kenyanNetworkCode(number: string): string {
  const m = /^\+254(\d{3})/.exec(number);
  const prefix = m ? Number(m[1]) : 0;
  if (
    (prefix >= 730 && prefix <= 739) ||
    (prefix >= 750 && prefix <= 756) ||
    prefix === 762 ||
    (prefix >= 780 && prefix <= 789) ||
    (prefix >= 100 && prefix <= 102)
  )
    return "63903";
  if (prefix >= 770 && prefix <= 779) return "63907";
  if (prefix >= 763 && prefix <= 766) return "63999";
  return "63902";
}

/** What the sandbox takes as a phone number: E.164, a plus and 7 to 15 digits. */
export const E164 = /^\+[1-9]\d{6,14}$/;
