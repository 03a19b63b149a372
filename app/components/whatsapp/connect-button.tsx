import { LoaderCircle, MessageCircle } from "~/components/ui/icons";
import { buttonClass } from "~/components/ui/button";
import embeddedSignupScript from "~/assets/embedded-signup.js?url";
import { m } from "~/paraglide/messages";

export { embeddedSignupScript };

export interface ConnectConfig {
  mode: "sandbox" | "facebook";
  appId: string;
  configId: string;
  graphVersion: string;
  state: string;
  dialogUrl: string | null;
}

const BUTTON = buttonClass("primary", "md", "w-full py-3 sm:w-auto");

/**
 * Starts Embedded Signup: the control and the line that says what is happening, with the
 * configuration the page's script (app/assets/embedded-signup.js, `embeddedSignupScript`) reads. The
 * code (login callback) and the WABA (session-info message) arrive on two channels in either order;
 * once both are here the browser goes to /embedded-callback.
 */
export function ConnectButton({ config, label }: { config: ConnectConfig; label: string }) {
  const { mode, appId, configId, graphVersion, state } = config;
  const icons = (
    <>
      <span className="inline-flex" data-busy-icon hidden>
        <LoaderCircle className="size-5 animate-spin" aria-hidden />
      </span>
      <span className="inline-flex" data-idle-icon>
        <MessageCircle className="size-5" aria-hidden />
      </span>
    </>
  );
  return (
    <div className="space-y-3" data-embedded-signup={JSON.stringify({ mode, appId, configId, graphVersion, state })}>
      {mode === "sandbox" && config.dialogUrl ? (
        <a href={config.dialogUrl} className={BUTTON} data-testid="connect-whatsapp">
          {icons}
          {label}
        </a>
      ) : (
        <>
          <button type="button" className={BUTTON} data-testid="connect-whatsapp">
            {icons}
            {label}
          </button>
          <noscript>
            <p className="text-sm text-amber-700">{m.whatsapp_signup_needs_javascript()}</p>
          </noscript>
        </>
      )}
      {/* What the page's script writes here as the signup goes on, in the page's language. */}
      <p
        className="text-sm text-slate-600"
        aria-live="polite"
        data-testid="connect-phase"
        data-signup-phase
        data-waiting={m.whatsapp_phase_waiting()}
        data-processing={m.whatsapp_phase_processing()}
        data-cancelled={m.whatsapp_phase_cancelled()}
        data-error={m.whatsapp_phase_error()}
      />
    </div>
  );
}
