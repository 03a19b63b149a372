import { lazy, Suspense, useState } from "react";
import { Form, href } from "react-router";
import { Power, PowerOff } from "~/components/ui/icons";
import { Button, ButtonLink } from "~/components/ui/button";
import { formatWhen } from "~/lib/dates";
import { useCan } from "~/components/layout/shell-role";
import { m } from "~/paraglide/messages";

// The confirmation opens on a click: its code comes then, not with the page (decision 061).
const Dialog = lazy(() => import("~/components/ui/dialog").then((module) => ({ default: module.Dialog })));

export interface ConnectionView {
  id: string;
  wabaId: string;
  name: string | null;
  status: "connected" | "disconnected";
  confirmedByMeta: boolean;
  /** Meta refused Jumbe's token (error 190): sending waits for Embedded Signup again. */
  needsReconnection?: { since: string; reason: string } | null;
  numbers: { id: string; number: string; verifiedName: string | null; quality: string; qualityEvent: string | null; registered: boolean }[];
}

const QUALITY = {
  high: "bg-brand-100 text-brand-900",
  medium: "bg-amber-100 text-amber-900",
  low: "bg-red-100 text-red-900",
  unknown: "bg-slate-100 text-slate-700",
} as Record<string, string>;

/** Meta's quality rating of a number in words (the rating itself is a code: high, medium, low, unknown). */
function qualityWord(quality: string) {
  if (quality === "high") return m.whatsapp_quality_high();
  if (quality === "medium") return m.whatsapp_quality_medium();
  if (quality === "low") return m.whatsapp_quality_low();
  return quality === "unknown" ? m.whatsapp_quality_unknown() : quality;
}

/** The disconnect question a page was asked to show (server-rendered, for browsers without JavaScript). */
export interface DisconnectQuestion {
  accountId: string;
  label: string;
  redirectTo: string;
}

/**
 * Each connected WABA with its numbers, and a form that disconnects or reconnects it. Disconnect asks
 * first: in a dialog with JavaScript; without it the form posts without confirm=yes and the server
 * answers with /whatsapp?confirm=disconnect, where `confirming` renders the same question in place.
 */
export function ConnectionList({
  connections,
  busy,
  redirectTo,
  confirming = null,
}: {
  connections: ConnectionView[];
  busy: boolean;
  redirectTo: string;
  confirming?: DisconnectQuestion | null;
}) {
  const [asking, setAsking] = useState<ConnectionView | null>(null);
  // Agents and viewers see the connection but cannot change it: no buttons for them.
  const canManage = useCan("whatsapp:manage");
  return (
    <>
      <ul className="space-y-3" data-testid="connections">
        {connections.map((c) => (
          <li
            key={c.id}
            className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm"
            data-testid="connection"
            data-status={c.status}
          >
            <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
              <div className="min-w-0">
                <p className="font-semibold">
                  {c.name ?? m.whatsapp_account_unnamed()}{" "}
                  <span
                    className={`ml-1 rounded-full px-2 py-0.5 text-xs font-medium ${c.status === "connected" ? "bg-brand-100 text-brand-900" : "bg-slate-200 text-slate-700"}`}
                  >
                    {c.status === "connected" ? m.whatsapp_connected() : m.whatsapp_disconnected()}
                  </span>
                </p>
                <p className="text-xs text-slate-500">WABA {c.wabaId}</p>
                {c.needsReconnection ? (
                  <p
                    role="alert"
                    className="mt-2 rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900"
                    data-testid="needs-reconnection"
                  >
                    <span className="font-semibold">{m.whatsapp_needs_reconnecting()}</span>{" "}
                    {m.whatsapp_needs_reconnecting_detail({
                      when: formatWhen(c.needsReconnection.since),
                      reason: c.needsReconnection.reason,
                    })}
                  </p>
                ) : null}
                <ul className="mt-2 space-y-1">
                  {c.numbers.map((n) => (
                    <li key={n.id} className="flex flex-wrap items-center gap-2 text-sm" data-testid="phone-number">
                      <span className="font-medium">{n.number}</span>
                      {n.verifiedName ? <span className="text-slate-600">{n.verifiedName}</span> : null}
                      <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${QUALITY[n.quality] ?? QUALITY.unknown}`}>
                        {m.whatsapp_quality({ quality: qualityWord(n.quality) })}
                      </span>
                      {n.qualityEvent ? (
                        <span className="text-xs text-slate-500">{m.whatsapp_quality_event({ event: n.qualityEvent })}</span>
                      ) : null}
                      {!n.registered ? <span className="text-xs text-amber-700">{m.whatsapp_not_registered()}</span> : null}
                    </li>
                  ))}
                </ul>
              </div>
              {!canManage || (confirming?.accountId === c.id && c.status === "connected") ? null : (
                <Form method="post" action={href("/whatsapp")} className="shrink-0">
                  <input type="hidden" name="accountId" value={c.id} />
                  <input type="hidden" name="redirectTo" value={redirectTo} />
                  {c.status === "connected" ? (
                    <Button
                      name="intent"
                      value="disconnect"
                      variant="secondary"
                      disabled={busy}
                      onClick={(event) => {
                        // With JavaScript the question opens here; without, the server asks it.
                        event.preventDefault();
                        setAsking(c);
                      }}
                    >
                      <PowerOff className="size-4" aria-hidden /> {m.whatsapp_disconnect()}
                    </Button>
                  ) : (
                    <Button name="intent" value="reconnect" disabled={busy}>
                      <Power className="size-4" aria-hidden /> {m.whatsapp_reconnect()}
                    </Button>
                  )}
                </Form>
              )}
            </div>
            {canManage && confirming?.accountId === c.id && c.status === "connected" ? (
              <Form
                method="post"
                action={href("/whatsapp")}
                className="mt-4 rounded-lg border border-red-200 bg-red-50 p-4"
                role="alertdialog"
                aria-labelledby="disconnect-question"
                data-testid="disconnect-confirm"
              >
                <p id="disconnect-question" className="font-semibold text-red-900">
                  {m.whatsapp_disconnect_question({ account: confirming.label })}
                </p>
                <p className="mt-1 text-sm text-red-900">{m.whatsapp_disconnect_explained()}</p>
                <DisconnectFields accountId={c.id} redirectTo={confirming.redirectTo} />
                <div className="mt-3 flex gap-2">
                  <Button type="submit" variant="danger" disabled={busy}>
                    {m.whatsapp_disconnect()}
                  </Button>
                  <ButtonLink to={confirming.redirectTo} variant="secondary">
                    {m.whatsapp_cancel()}
                  </ButtonLink>
                </div>
              </Form>
            ) : null}
          </li>
        ))}
      </ul>
      {asking ? (
        <Suspense fallback={null}>
          <Dialog open onClose={() => setAsking(null)} labelledBy="disconnect-dialog-title">
            <Form method="post" action={href("/whatsapp")} onSubmit={() => setAsking(null)} data-testid="disconnect-dialog">
              <h2 id="disconnect-dialog-title" className="text-lg font-semibold">
                {m.whatsapp_disconnect_question({ account: connectionLabel(asking) })}
              </h2>
              <p className="mt-2 text-sm text-slate-600">{m.whatsapp_disconnect_explained()}</p>
              <DisconnectFields accountId={asking.id} redirectTo={redirectTo} />
              <div className="mt-4 flex justify-end gap-2">
                <Button type="button" variant="secondary" onClick={() => setAsking(null)}>
                  {m.whatsapp_cancel()}
                </Button>
                <Button type="submit" variant="danger" disabled={busy}>
                  {m.whatsapp_disconnect()}
                </Button>
              </div>
            </Form>
          </Dialog>
        </Suspense>
      ) : null}
    </>
  );
}

function DisconnectFields({ accountId, redirectTo }: { accountId: string; redirectTo: string }) {
  return (
    <>
      <input type="hidden" name="intent" value="disconnect" />
      <input type="hidden" name="accountId" value={accountId} />
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <input type="hidden" name="confirm" value="yes" />
    </>
  );
}

/** The same words the server-rendered question uses (disconnectQuestion). */
function connectionLabel(c: ConnectionView) {
  const name = c.name ?? m.whatsapp_account_fallback({ waba: c.wabaId });
  return c.numbers.length ? `${name} (${c.numbers.map((n) => n.number).join(", ")})` : name;
}
