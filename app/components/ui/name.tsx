import { withoutBidiControls } from "~/lib/names";

/**
 * A name someone typed (an organisation's, a person's, a contact's) in running text or a list. Its
 * bidirectional controls are dropped, so a name stored before they were refused (app/lib/names.ts)
 * cannot read as something else; and it is isolated (<bdi>), so a name in a right-to-left script
 * keeps to itself instead of reordering the words beside it. For a page title, an attribute or a
 * toast, use `withoutBidiControls` on the string.
 */
export function Name({ children }: { children: string }) {
  return <bdi>{withoutBidiControls(children)}</bdi>;
}
