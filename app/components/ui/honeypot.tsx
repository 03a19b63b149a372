import { m } from "~/paraglide/messages";

export interface HoneypotProps {
  nameFieldName: string;
  validFromFieldName: string | null;
  encryptedValidFrom: string;
}

/** Hidden from people and assistive technology; bots that fill every field give themselves away. */
export function HoneypotInputs({ honeypot }: { honeypot: HoneypotProps }) {
  return (
    <div aria-hidden className="absolute -left-[9999px] h-px w-px overflow-hidden">
      <label htmlFor={honeypot.nameFieldName}>{m.auth_honeypot_label()}</label>
      <input id={honeypot.nameFieldName} name={honeypot.nameFieldName} type="text" defaultValue="" autoComplete="nope" tabIndex={-1} />
      {honeypot.validFromFieldName ? (
        <input name={honeypot.validFromFieldName} type="hidden" value={honeypot.encryptedValidFrom} readOnly />
      ) : null}
    </div>
  );
}
