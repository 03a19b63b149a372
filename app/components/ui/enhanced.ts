import { useCallback } from "react";
import formsScript from "~/assets/forms.js?url";

/** The form behaviours that need a script (app/assets/forms.js), one implementation for every page. */
export { formsScript };

type FormsModule = typeof import("~/assets/forms.js");

/**
 * A ref for an element whose behaviour lives in app/assets/forms.js (a password toggle, code boxes, a
 * strength meter). Pages without React load that file themselves (`handle.scripts`); on a hydrated
 * page the element asks for it once it is in the document. Until then, and without scripts, the
 * element is what the server rendered: complete, without the enhancement.
 */
export function useEnhanced<T extends Element>() {
  return useCallback((element: T | null) => {
    if (!element) return;
    import(/* @vite-ignore */ formsScript).then(
      (forms: FormsModule) => forms.enhance(element),
      () => undefined, // an enhancement: the server-rendered element stays as it is
    );
  }, []);
}
