import { useEnhanced } from "~/components/ui/enhanced";
import { m } from "~/paraglide/messages";

/**
 * Six single-digit boxes, all named `otp`, so the form posts them with or without JavaScript.
 * With scripts (app/assets/forms.js): non-digits are stripped, typing advances, Backspace goes back,
 * a pasted code fills every box.
 */
export function OtpInput({ length = 6, describedBy, invalid }: { length?: number; describedBy?: string; invalid?: boolean }) {
  const enhanced = useEnhanced<HTMLDivElement>();
  return (
    <div ref={enhanced} data-otp-boxes className="flex justify-between gap-2" role="group" aria-label={m.auth_otp_group_label()}>
      {Array.from({ length }, (_, index) => (
        <input
          key={index}
          name="otp"
          inputMode="numeric"
          autoComplete={index === 0 ? "one-time-code" : "off"}
          pattern="[0-9]*"
          maxLength={index === 0 ? length : 1}
          aria-label={m.auth_otp_digit_label({ position: index + 1 })}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          className={`size-12 rounded-lg border text-center text-xl font-semibold shadow-sm focus:border-brand-600 focus:ring-2 focus:ring-brand-100 focus:outline-none sm:size-14 ${invalid ? "border-red-500 focus:border-red-600 focus:ring-red-100" : "border-slate-300"}`}
        />
      ))}
    </div>
  );
}
