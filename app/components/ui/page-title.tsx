import type { ReactNode } from "react";

/** A page's one heading, as every page of the product and the console draws it. */
export function PageTitle({ children, id }: { children: ReactNode; id?: string }) {
  return (
    <h1 id={id} className="text-2xl font-bold tracking-tight wrap-break-word">
      {children}
    </h1>
  );
}
