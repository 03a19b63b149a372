import { useRef, type ClipboardEvent, type KeyboardEvent, type FormEvent } from "react";

/**
 * Six single-digit boxes, all named `otp`, so the form posts them with or without JavaScript.
 * With JavaScript: non-digits are stripped, typing advances, Backspace goes back, a pasted code fills every box.
 */
export function OtpInput({ length = 6, describedBy, invalid }: { length?: number; describedBy?: string; invalid?: boolean }) {
  const boxes = useRef<Array<HTMLInputElement | null>>([]);
  const focus = (index: number) => boxes.current[Math.max(0, Math.min(length - 1, index))]?.focus();

  const fill = (start: number, digits: string) => {
    digits.split("").forEach((digit, offset) => {
      const box = boxes.current[start + offset];
      if (box) box.value = digit;
    });
    focus(start + digits.length);
  };

  const onInput = (index: number) => (event: FormEvent<HTMLInputElement>) => {
    const digits = event.currentTarget.value.replace(/\D/g, "");
    event.currentTarget.value = digits.slice(0, 1);
    if (digits.length > 1) fill(index, digits.slice(0, length - index));
    else if (digits) focus(index + 1);
  };

  const onKeyDown = (index: number) => (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "Backspace" && !event.currentTarget.value && index > 0) {
      event.preventDefault();
      const previous = boxes.current[index - 1];
      if (previous) previous.value = "";
      focus(index - 1);
    } else if (event.key === "ArrowLeft") focus(index - 1);
    else if (event.key === "ArrowRight") focus(index + 1);
  };

  const onPaste = (index: number) => (event: ClipboardEvent<HTMLInputElement>) => {
    const digits = event.clipboardData.getData("text").replace(/\D/g, "");
    if (!digits) return;
    event.preventDefault();
    fill(index, digits.slice(0, length - index));
  };

  return (
    <div className="flex justify-between gap-2" role="group" aria-label="6-digit code">
      {Array.from({ length }, (_, index) => (
        <input
          key={index}
          ref={(el) => {
            boxes.current[index] = el;
          }}
          name="otp"
          inputMode="numeric"
          autoComplete={index === 0 ? "one-time-code" : "off"}
          pattern="[0-9]*"
          maxLength={index === 0 ? length : 1}
          aria-label={`Digit ${index + 1}`}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          onInput={onInput(index)}
          onKeyDown={onKeyDown(index)}
          onPaste={onPaste(index)}
          onFocus={(e) => e.currentTarget.select()}
          className={`size-12 rounded-lg border text-center text-xl font-semibold shadow-sm focus:border-brand-600 focus:ring-2 focus:ring-brand-100 focus:outline-none sm:size-14 ${invalid ? "border-red-500 focus:border-red-600 focus:ring-red-100" : "border-slate-300"}`}
        />
      ))}
    </div>
  );
}
