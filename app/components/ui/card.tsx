import type { HTMLAttributes, ReactNode } from "react";

const PADDING = { none: "", sm: "p-4", md: "p-5", lg: "p-6", xl: "p-8" } as const;

/** A white panel with a border: the surface every page section sits on (`.card` and its parts in app.css). */
export function Card({
  padding = "md",
  className = "",
  as: As = "section",
  ...props
}: HTMLAttributes<HTMLElement> & { padding?: keyof typeof PADDING; as?: "section" | "div" | "article" }) {
  return <As className={`card ${PADDING[padding]} ${className}`.trim()} {...props} />;
}

/** A card's title row: a heading, an optional description under it, actions on the right. */
export function CardHeader({
  title,
  description,
  actions,
  id,
  level = 2,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  id?: string;
  level?: 2 | 3;
}) {
  const Heading = level === 2 ? "h2" : "h3";
  return (
    <div className="card-head">
      <div className="min-w-0">
        <Heading id={id} className="card-title">
          {title}
        </Heading>
        {description ? <p className="card-note">{description}</p> : null}
      </div>
      {actions ? <div className="flex shrink-0 flex-wrap gap-2">{actions}</div> : null}
    </div>
  );
}

export function CardBody({ className = "", ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={`mt-4 ${className}`.trim()} {...props} />;
}

export function CardFooter({ className = "", ...props }: HTMLAttributes<HTMLDivElement>) {
  return (
    <div className={`mt-5 flex flex-wrap items-center justify-end gap-2 border-t border-slate-100 pt-4 ${className}`.trim()} {...props} />
  );
}
