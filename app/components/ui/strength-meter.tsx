import { useEffect, useState } from "react";
import { passwordStrength } from "~/lib/password-strength";

const COLORS = { Weak: "bg-red-500", Fair: "bg-amber-500", Good: "bg-sky-500", Strong: "bg-brand-600" } as const;

/** Spec section 5's meter, following the password input with id `inputId`. Needs scripts, so it renders after hydration. */
export function StrengthMeter({ inputId }: { inputId: string }) {
  const [password, setPassword] = useState<string | null>(null);
  useEffect(() => {
    const input = document.getElementById(inputId) as HTMLInputElement | null;
    if (!input) return;
    const update = () => setPassword(input.value);
    update();
    input.addEventListener("input", update);
    return () => input.removeEventListener("input", update);
  }, [inputId]);
  if (password === null) return null;
  const { score, label } = passwordStrength(password);
  return (
    <div className="-mt-4 mb-3" aria-live="polite">
      <div className="flex gap-1" aria-hidden>
        {[0, 1, 2, 3, 4].map((i) => (
          <span key={i} className={`h-1.5 flex-1 rounded-full ${i < score ? COLORS[label] : "bg-slate-200"}`} />
        ))}
      </div>
      <p className="mt-1 text-xs text-slate-600">
        Password strength: <strong data-testid="password-strength">{password ? label : "Weak"}</strong>
      </p>
    </div>
  );
}
