import { Link, type LinkProps } from "~/components/ui/link";

const WEIGHT = { normal: "", medium: "font-medium", semibold: "font-semibold" } as const;
// The brand colour and the underline are app/app.css's .link and .link-hover: a list has dozens.
const UNDERLINE = { always: "link", hover: "link-hover" } as const;

/**
 * A link inside text or beside a figure ("Top up", "View all"): the brand colour, underlined
 * always (in a sentence) or on hover (standing alone).
 */
export function TextLink({
  weight = "normal",
  underline = "always",
  ...props
}: Omit<LinkProps, "className"> & { weight?: keyof typeof WEIGHT; underline?: keyof typeof UNDERLINE }) {
  return <Link {...props} className={[WEIGHT[weight], UNDERLINE[underline]].filter(Boolean).join(" ")} />;
}
