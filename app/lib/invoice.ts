/** KES from cents, as invoices show it: "KES 15,000.00" (an ordinary space), negatives "-KES 1,234.50". */
export function formatKes(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(Math.trunc(cents));
  const shillings = Math.floor(abs / 100).toLocaleString("en-US");
  return `${sign}KES ${shillings}.${String(abs % 100).padStart(2, "0")}`;
}
