import type { ReactNode } from "react";
import { Link } from "~/components/ui/link";
import { ArrowLeft } from "~/components/ui/icons";

/** The link above a sub-page's heading back to the page it belongs to ("← Contacts"). */
export function BackLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Link to={to} className="inline-flex items-center gap-1 text-sm font-medium text-brand-700 hover:underline">
      <ArrowLeft className="size-4" aria-hidden /> {children}
    </Link>
  );
}
