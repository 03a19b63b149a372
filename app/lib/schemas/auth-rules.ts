// The limits and words of the auth forms, without zod: pages import them from here and load the
// schemas (auth.ts) only when a form is used (decision 061).
import { m } from "~/paraglide/messages";

// Text, at sign, text, dot, text with no whitespace (the spec's rule); control characters (NUL
// among them, which PostgreSQL cannot store) are no more an address than whitespace is.
const EMAIL_CHAR = "[^\\s\\u0000-\\u001f\\u007f-\\u009f]";

export const EMAIL_PATTERN = new RegExp(`^${EMAIL_CHAR}+@${EMAIL_CHAR}+\\.${EMAIL_CHAR}+$`);

export const SIGNIN_PASSWORD_MIN = 6;

export const PASSWORD_MIN = 8;

export const PASSWORD_MAX = 256;

// Texts are the spec's, word for word (sections 5 and 8), in English (app/messages/validation). Getters:
// each is read in the language of the request (or page) that reports it, never when a module loads.
export const MESSAGES = {
  get emailRequired() {
    return m.validation_email_required();
  },
  get emailInvalid() {
    return m.validation_email_invalid();
  },
  get passwordRequired() {
    return m.validation_password_required();
  },
  get signinPasswordMin() {
    return m.validation_signin_password_min({ min: SIGNIN_PASSWORD_MIN });
  },
  get requiredFields() {
    return m.validation_required_fields();
  },
  get signupPasswordsMismatch() {
    return m.validation_signup_passwords_mismatch();
  },
  get terms() {
    return m.validation_terms();
  },
  get otpIncomplete() {
    return m.validation_otp_incomplete();
  },
  get currentRequired() {
    return m.validation_current_password_required();
  },
  get newRequired() {
    return m.validation_new_password_required();
  },
  get newMin() {
    return m.validation_new_password_min({ min: PASSWORD_MIN });
  },
  get confirmRequired() {
    return m.validation_confirm_password_required();
  },
  get passwordsMismatch() {
    return m.validation_passwords_mismatch();
  },
  get mustDiffer() {
    return m.validation_password_must_differ();
  },
  get businessNameRequired() {
    return m.validation_business_name_required();
  },
  get phoneInvalid() {
    return m.validation_phone_invalid();
  },
};
