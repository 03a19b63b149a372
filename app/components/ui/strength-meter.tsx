import { useEnhanced } from "~/components/ui/enhanced";

/**
 * Spec section 5's meter, following the password input with id `inputId`. It needs a script
 * (app/assets/forms.js rates the password as it is typed), so the server renders it hidden.
 */
export function StrengthMeter({ inputId }: { inputId: string }) {
  const enhanced = useEnhanced<HTMLDivElement>();
  return (
    <div ref={enhanced} hidden data-strength-for={inputId} className="-mt-4 mb-3" aria-live="polite">
      <div className="flex gap-1" aria-hidden>
        {[0, 1, 2, 3, 4].map((i) => (
          <span key={i} data-bar className="h-1.5 flex-1 rounded-full bg-slate-200" />
        ))}
      </div>
      <p className="mt-1 text-xs text-slate-600">
        Password strength:{" "}
        <strong data-label data-testid="password-strength">
          Weak
        </strong>
      </p>
    </div>
  );
}
