/** What two-factor sign-in says, in one place (pages, the JSON API and tests use these words). */
export const TWO_FACTOR_MESSAGES = {
  askCode: "Enter the 6-digit code from your authenticator app, or one of your recovery codes.",
  wrongCode: "That code is not right. Check your authenticator app and try again.",
  codeRequired: "Enter the 6-digit code from your authenticator app.",
  challengeGone: "Your sign-in has timed out. Please sign in again.",
  tooManyCodes: "Too many wrong codes. Please sign in again.",
  turnedOn: "Two-factor sign-in is on. Keep your recovery codes somewhere safe.",
  turnedOff: "Two-factor sign-in is off.",
  alreadyOn: "Two-factor sign-in is already on.",
  notStarted: "Start the set-up again: scan the new QR code, then enter its code.",
  wrongPassword: "Your password is incorrect.",
  requiredByOrganisation: "Your organisation requires two-factor sign-in, so it cannot be turned off.",
  setUpFirst: "Your organisation requires two-factor sign-in. Set it up to continue.",
  ownerFirst: "Turn on two-factor sign-in for yourself before requiring it for everyone.",
  recoveryUsed: (left: number) =>
    `You signed in with a recovery code. ${left} ${left === 1 ? "code is" : "codes are"} left; make new ones in Account Settings, Security.`,
} as const;
