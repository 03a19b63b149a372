/** The audit log's actions in words; an action not listed shows its code. */
const ACTION_LABELS: Record<string, string> = {
  "organization.suspend": "Suspended the organisation",
  "organization.reactivate": "Reactivated the organisation",
  "organization.edit": "Edited the organisation",
  "user.edit": "Edited the user",
  "wallet.adjust": "Adjusted the wallet",
  "invoice.reconcile": "Reconciled a bank transfer",
  "invoice.reminder": "Sent a payment reminder",
  "dispute.credit": "Resolved a dispute with a credit note",
  "dispute.reject": "Rejected a dispute",
  "whatsapp.test": "Tested a WhatsApp connection",
  "whatsapp.resubscribe": "Resubscribed a WhatsApp account to webhooks",
  "whatsapp.disconnect": "Disconnected a WhatsApp account",
  "whatsapp.reconnect_requested": "Asked for a WhatsApp account to be connected again",
  "template.approve": "Approved a template for Meta",
  "template.reject": "Returned a template to the organisation",
  "template.hold": "Held the organisation's templates for review",
  "template.release": "Stopped holding the organisation's templates",
  "template.hold_new_organisations": "Started holding new organisations' templates for review",
  "template.release_new_organisations": "Stopped holding new organisations' templates",
  "alert.resolve": "Resolved a system alert",
};

export function auditActionLabel(action: string) {
  return ACTION_LABELS[action] ?? action;
}

function words(value: unknown): string {
  if (value === null || value === undefined) return "none";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** "status: active → suspended; plan: Starter → Growth": what changed between the before and after records. */
export function describeChange(before: unknown, after: unknown): string {
  const b = (before && typeof before === "object" ? before : {}) as Record<string, unknown>;
  const a = (after && typeof after === "object" ? after : {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  const changes = keys.filter((k) => words(b[k]) !== words(a[k])).map((k) => `${k}: ${words(b[k])} → ${words(a[k])}`);
  return changes.length ? changes.join("; ") : "—";
}
