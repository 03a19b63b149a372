export type StrengthLabel = "Weak" | "Fair" | "Good" | "Strong";

/** Spec section 5: one point each for length >= 8, uppercase, lowercase, digit, special character. */
export function passwordStrength(password: string): { score: number; label: StrengthLabel } {
  const score = [/.{8,}/, /[A-Z]/, /[a-z]/, /\d/, /[^A-Za-z0-9]/].filter((rule) => rule.test(password)).length;
  const label: StrengthLabel = score < 2 ? "Weak" : score === 2 ? "Fair" : score === 3 ? "Good" : "Strong";
  return { score, label };
}
