import { m } from "~/paraglide/messages";

/** The audit log's actions in words (the request's language); an action not listed shows its code. */
const ACTION_LABELS: Record<string, () => string> = {
  "organization.suspend": () => m.admin_audit_action_organization_suspend(),
  "organization.reactivate": () => m.admin_audit_action_organization_reactivate(),
  "organization.edit": () => m.admin_audit_action_organization_edit(),
  "user.edit": () => m.admin_audit_action_user_edit(),
  "wallet.adjust": () => m.admin_audit_action_wallet_adjust(),
  "invoice.reconcile": () => m.admin_audit_action_invoice_reconcile(),
  "invoice.reminder": () => m.admin_audit_action_invoice_reminder(),
  "dispute.credit": () => m.admin_audit_action_dispute_credit(),
  "dispute.reject": () => m.admin_audit_action_dispute_reject(),
  "whatsapp.test": () => m.admin_audit_action_whatsapp_test(),
  "whatsapp.resubscribe": () => m.admin_audit_action_whatsapp_resubscribe(),
  "whatsapp.disconnect": () => m.admin_audit_action_whatsapp_disconnect(),
  "whatsapp.reconnect_requested": () => m.admin_audit_action_whatsapp_reconnect_requested(),
  "template.approve": () => m.admin_audit_action_template_approve(),
  "template.reject": () => m.admin_audit_action_template_reject(),
  "template.hold": () => m.admin_audit_action_template_hold(),
  "template.release": () => m.admin_audit_action_template_release(),
  "template.hold_new_organisations": () => m.admin_audit_action_template_hold_new_organisations(),
  "template.release_new_organisations": () => m.admin_audit_action_template_release_new_organisations(),
  "alert.resolve": () => m.admin_audit_action_alert_resolve(),
  "partner.enrol": () => m.admin_audit_action_partner_enrol(),
  "partner.approve": () => m.admin_audit_action_partner_approve(),
  "partner.reject": () => m.admin_audit_action_partner_reject(),
  "partner.suspend": () => m.admin_audit_action_partner_suspend(),
  "partner.reactivate": () => m.admin_audit_action_partner_reactivate(),
  "partner.edit": () => m.admin_audit_action_partner_edit(),
  "partner.share_change": () => m.admin_audit_action_partner_share_change(),
  "partner.assign_client": () => m.admin_audit_action_partner_assign_client(),
  "partner.move_client": () => m.admin_audit_action_partner_move_client(),
  "partner.unassign_client": () => m.admin_audit_action_partner_unassign_client(),
  "partner.referral_approve": () => m.admin_audit_action_partner_referral_approve(),
  "partner.referral_reject": () => m.admin_audit_action_partner_referral_reject(),
  "settlement.mark_paid": () => m.admin_audit_action_settlement_mark_paid(),
  "settlement.payout": () => m.admin_audit_action_settlement_payout(),
  "settlement.payout_approve": () => m.admin_audit_action_settlement_payout_approve(),
  "staff.invite": () => m.admin_audit_action_staff_invite(),
  "staff.invitation_revoke": () => m.admin_audit_action_staff_invitation_revoke(),
  "staff.role_change": () => m.admin_audit_action_staff_role_change(),
  "staff.suspend": () => m.admin_audit_action_staff_suspend(),
  "staff.reactivate": () => m.admin_audit_action_staff_reactivate(),
};

export function auditActionLabel(action: string) {
  return Object.hasOwn(ACTION_LABELS, action) ? ACTION_LABELS[action]!() : action;
}

function words(value: unknown): string {
  if (value === null || value === undefined) return m.admin_audit_change_none();
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
