import { useEnhanced } from "~/components/ui/enhanced";
import { m } from "~/paraglide/messages";

/**
 * Spec section 5's meter, following the password input with id `inputId`. It needs a script
 * (app/assets/forms.js rates the password as it is typed), so the server renders it hidden. The
 * script's four words come in the page's language with it (data-word-weak to data-word-strong).
 */
export function StrengthMeter({ inputId }: { inputId: string }) {
  const enhanced = useEnhanced<HTMLDivElement>();
  return (
    <div
      ref={enhanced}
      hidden
      data-strength-for={inputId}
      data-word-weak={m.auth_strength_weak()}
      data-word-fair={m.auth_strength_fair()}
      data-word-good={m.auth_strength_good()}
      data-word-strong={m.auth_strength_strong()}
      className="-mt-4 mb-3"
      aria-live="polite"
    >
      <div className="flex gap-1" aria-hidden>
        {[0, 1, 2, 3, 4].map((i) => (
          <span key={i} data-bar className="h-1.5 flex-1 rounded-full bg-slate-200" />
        ))}
      </div>
      <p className="mt-1 text-xs text-slate-600">
        {m.auth_strength_label()}{" "}
        <strong data-label data-testid="password-strength">
          {m.auth_strength_weak()}
        </strong>
      </p>
    </div>
  );
}
