import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

/**
 * What two-factor sign-in says, in one place (pages, the JSON API and tests use these words). Getters:
 * each is read in the language of the request that says it (app/messages/auth), never at load.
 */
export const TWO_FACTOR_MESSAGES = {
  get askCode() {
    return m.auth_two_factor_ask_code();
  },
  get wrongCode() {
    return m.auth_two_factor_wrong_code();
  },
  get codeRequired() {
    return m.validation_two_factor_code_required();
  },
  get challengeGone() {
    return m.auth_two_factor_challenge_gone();
  },
  get tooManyCodes() {
    return m.auth_two_factor_too_many_codes();
  },
  get turnedOn() {
    return m.auth_two_factor_turned_on();
  },
  get turnedOff() {
    return m.auth_two_factor_turned_off();
  },
  get alreadyOn() {
    return m.auth_two_factor_already_on();
  },
  get notStarted() {
    return m.auth_two_factor_not_started();
  },
  get wrongPassword() {
    return m.auth_two_factor_wrong_password();
  },
  get requiredByOrganisation() {
    return m.auth_two_factor_required_by_organisation();
  },
  get setUpFirst() {
    return m.auth_two_factor_set_up_first();
  },
  get ownerFirst() {
    return m.auth_two_factor_owner_first();
  },
  recoveryUsed: (left: number) =>
    byCount(
      left,
      () => m.auth_two_factor_recovery_used_one({ left }),
      () => m.auth_two_factor_recovery_used_other({ left }),
    ),
};
