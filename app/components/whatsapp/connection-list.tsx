import { Form } from "react-router";
import { Power, PowerOff } from "lucide-react";

export interface ConnectionView {
  id: string;
  wabaId: string;
  name: string | null;
  status: "connected" | "disconnected";
  confirmedByMeta: boolean;
  numbers: { id: string; number: string; verifiedName: string | null; quality: string; qualityEvent: string | null; registered: boolean }[];
}

const QUALITY = {
  high: "bg-brand-100 text-brand-900",
  medium: "bg-amber-100 text-amber-900",
  low: "bg-red-100 text-red-900",
  unknown: "bg-slate-100 text-slate-700",
} as Record<string, string>;

/** Each connected WABA with its numbers, and a form that disconnects or reconnects it (no script needed). */
export function ConnectionList({ connections, busy, redirectTo }: { connections: ConnectionView[]; busy: boolean; redirectTo: string }) {
  return (
    <ul className="space-y-3" data-testid="connections">
      {connections.map((c) => (
        <li key={c.id} className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm" data-testid="connection" data-status={c.status}>
          <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
            <div className="min-w-0">
              <p className="font-semibold">
                {c.name ?? "WhatsApp Business Account"}{" "}
                <span className={`ml-1 rounded-full px-2 py-0.5 text-xs font-medium ${c.status === "connected" ? "bg-brand-100 text-brand-900" : "bg-slate-200 text-slate-700"}`}>
                  {c.status === "connected" ? "Connected" : "Disconnected"}
                </span>
              </p>
              <p className="text-xs text-slate-500">WABA {c.wabaId}</p>
              <ul className="mt-2 space-y-1">
                {c.numbers.map((n) => (
                  <li key={n.id} className="flex flex-wrap items-center gap-2 text-sm" data-testid="phone-number">
                    <span className="font-medium">{n.number}</span>
                    {n.verifiedName ? <span className="text-slate-600">{n.verifiedName}</span> : null}
                    <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${QUALITY[n.quality] ?? QUALITY.unknown}`}>Quality: {n.quality}</span>
                    {n.qualityEvent ? <span className="text-xs text-slate-500">Last quality event: {n.qualityEvent}</span> : null}
                    {!n.registered ? <span className="text-xs text-amber-700">Not registered</span> : null}
                  </li>
                ))}
              </ul>
            </div>
            <Form method="post" action="/whatsapp" className="shrink-0">
              <input type="hidden" name="accountId" value={c.id} />
              <input type="hidden" name="redirectTo" value={redirectTo} />
              {c.status === "connected" ? (
                <button name="intent" value="disconnect" disabled={busy} className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-50 disabled:opacity-60">
                  <PowerOff className="size-4" aria-hidden /> Disconnect
                </button>
              ) : (
                <button name="intent" value="reconnect" disabled={busy} className="inline-flex items-center gap-2 rounded-lg bg-brand-700 px-3 py-2 text-sm font-semibold text-white hover:bg-brand-900 disabled:opacity-60">
                  <Power className="size-4" aria-hidden /> Reconnect
                </button>
              )}
            </Form>
          </div>
        </li>
      ))}
    </ul>
  );
}
