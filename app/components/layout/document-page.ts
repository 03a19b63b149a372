import type { PageHandle } from "~/root";
import { formsScript } from "~/components/ui/enhanced";
import { menusScript } from "./menu";
import liveScript from "~/assets/live.js?url";

/**
 * A page sent as server-rendered HTML with no React in the browser (decisions 007 and 060): its
 * forms post as documents, the server checks them, and app/assets/forms.js adds what needs a script
 * (the password toggle, the code boxes, the resend countdown, the busy submit button).
 */
export const documentPage: PageHandle = { hydrate: false, scripts: [formsScript] };

/**
 * The same inside a shell with menus (the signed-in app's, the admin console's): the menus' script
 * too, which closes the bell and account menus on Escape or a press beside them (decision 063).
 */
export const menuDocumentPage: PageHandle = { hydrate: false, scripts: [formsScript, menusScript] };

/**
 * The same with parts the server redraws as they change (app/assets/live.js, decision 067): a form
 * that follows its fields, a choice that redraws what depends on it, figures that follow a stream.
 */
export const liveDocumentPage: PageHandle = { hydrate: false, scripts: [formsScript, menusScript, liveScript] };

/**
 * Such a page reached by a client-side navigation (a link or a redirect inside the hydrated app) is
 * loaded as a document, so it is always the page the server renders, with its script.
 */
export function loadAsDocument({ request }: { request: Request }): Promise<never> {
  window.location.assign(request.url);
  return new Promise<never>(() => undefined);
}
