import type { ReactNode } from "react";

// Each tone's colours are the kit's classes in app/app.css (.badge-<tone>).
export type BadgeTone = "neutral" | "success" | "warning" | "danger" | "info" | "brand";

const BY_STATUS: Record<string, BadgeTone> = {
  active: "success",
  approved: "success",
  connected: "success",
  completed: "success",
  delivered: "success",
  paid: "success",
  read: "success",
  sent: "success",
  success: "success",
  verified: "success",
  draft: "neutral",
  disconnected: "neutral",
  archived: "neutral",
  pending: "warning",
  queued: "warning",
  scheduled: "warning",
  sending: "warning",
  in_review: "warning",
  awaiting_approval: "warning",
  warning: "warning",
  flagged: "warning",
  error: "danger",
  failed: "danger",
  rejected: "danger",
  suspended: "danger",
  cancelled: "danger",
  declined: "danger",
  expired: "danger",
  info: "info",
};

/** The tone a status shows in, whatever its case ("FAILED", "Delivered"); neutral for ones it does not know. */
export function statusTone(status: string): BadgeTone {
  return (
    BY_STATUS[
      status
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, "_")
    ] ?? "neutral"
  );
}

/** A small label for a status or a count. Give `status` to pick the tone from it. */
export function Badge({ tone, status, children }: { tone?: BadgeTone; status?: string; children?: ReactNode }) {
  const chosen = tone ?? (status ? statusTone(status) : "neutral");
  return <span className={`badge badge-${chosen}`}>{children ?? status}</span>;
}
