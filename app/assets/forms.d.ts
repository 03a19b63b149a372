// The types of forms.js, a plain browser module (it is served as written, not bundled).
export type StrengthLabel = "Weak" | "Fair" | "Good" | "Strong";
export function passwordStrength(password: string): { score: number; label: StrengthLabel };
export function enhance(root: ParentNode): void;
