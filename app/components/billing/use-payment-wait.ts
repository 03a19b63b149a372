import { useEffect, useRef } from "react";
import { useRevalidator } from "react-router";

/** How often the page asks about a payment while it waits (the JSON API, a few bytes each time). */
export const PAYMENT_POLL_MS = 2000;

/**
 * While a payment is pending: GET /api/billing/topups/<id> every two seconds, and once it is no
 * longer pending, the page's data again (its receipt, the new balance) without reloading the page.
 * Without JavaScript the page refreshes itself instead (a <noscript> refresh).
 */
export function usePaymentWait(paymentId: string, waiting: boolean) {
  const revalidator = useRevalidator();
  // The revalidator changes with its state; the wait depends on the payment alone.
  const latest = useRef(revalidator);
  useEffect(() => {
    latest.current = revalidator;
  });
  useEffect(() => {
    if (!waiting) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = async () => {
      try {
        const response = await fetch(`/api/billing/topups/${encodeURIComponent(paymentId)}`, {
          headers: { Accept: "application/json" },
          cache: "no-store",
        });
        if (response.ok) {
          const { status } = (await response.json()) as { status?: string };
          if (status && status !== "pending") {
            if (!stopped) void latest.current.revalidate();
            return;
          }
        }
      } catch {
        // A dropped connection: ask again at the next turn.
      }
      if (!stopped) timer = setTimeout(() => void ask(), PAYMENT_POLL_MS);
    };
    timer = setTimeout(() => void ask(), PAYMENT_POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [paymentId, waiting]);
}
