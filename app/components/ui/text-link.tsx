import { Link, type LinkProps } from "react-router";

const WEIGHT = { normal: "", medium: "font-medium", semibold: "font-semibold" } as const;
const UNDERLINE = { always: "underline", hover: "hover:underline" } as const;

/**
 * A link inside text or beside a figure ("Top up", "View all"): the brand colour, underlined
 * always (in a sentence) or on hover (standing alone).
 */
export function TextLink({
  weight = "normal",
  underline = "always",
  ...props
}: Omit<LinkProps, "className"> & { weight?: keyof typeof WEIGHT; underline?: keyof typeof UNDERLINE }) {
  return <Link {...props} className={[WEIGHT[weight], "text-brand-700", UNDERLINE[underline]].filter(Boolean).join(" ")} />;
}
