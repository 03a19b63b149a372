// The limits and words of the two-factor forms, without zod: pages import them from here and load the
// schemas (two-factor.ts) only when a form is used (decision 061).
import { m } from "~/paraglide/messages";

// Getters: each text is read in the language of the request (or page) that reports it, never at load.
export const TWO_FACTOR_FORM_MESSAGES = {
  get codeRequired() {
    return m.validation_two_factor_code_required();
  },
  get codeShape() {
    return m.validation_two_factor_code_shape();
  },
  get appCodeShape() {
    return m.validation_two_factor_app_code_shape();
  },
  get passwordRequired() {
    return m.validation_your_password_required();
  },
};
