import type { ReactNode } from "react";

const TONES = {
  neutral: "bg-slate-100 text-slate-700 ring-slate-200",
  success: "bg-brand-50 text-brand-900 ring-brand-200",
  warning: "bg-amber-50 text-amber-900 ring-amber-200",
  danger: "bg-red-50 text-red-800 ring-red-200",
  info: "bg-sky-50 text-sky-800 ring-sky-200",
  brand: "bg-brand-700 text-white ring-brand-700",
} as const;

export type BadgeTone = keyof typeof TONES;

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
  return (
    <span className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${TONES[chosen]}`}>
      {children ?? status}
    </span>
  );
}
