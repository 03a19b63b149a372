import { useEffect, useRef, useState } from "react";
import { LoaderCircle, MessageCircle } from "~/components/ui/icons";
import { buttonClass } from "~/components/ui/button";

export interface ConnectConfig {
  mode: "sandbox" | "facebook";
  appId: string;
  configId: string;
  graphVersion: string;
  state: string;
  dialogUrl: string | null;
}

type Phase = "idle" | "waiting" | "processing" | "cancelled" | "error";

interface SessionInfo {
  waba_id?: string;
  phone_number_id?: string;
}

interface FacebookSdk {
  init(options: Record<string, unknown>): void;
  login(callback: (response: { authResponse?: { code?: string } | null }) => void, options: Record<string, unknown>): void;
}
declare global {
  interface Window {
    FB?: FacebookSdk;
    fbAsyncInit?: () => void;
  }
}

const BUTTON = buttonClass("primary", "md", "w-full py-3 sm:w-auto");

/**
 * Starts Embedded Signup. The code (login callback) and the WABA (session-info message) arrive on
 * two channels in either order; once both are here the browser goes to /embedded-callback, where
 * the server does the rest within the code's 30 seconds.
 */
export function ConnectButton({ config, label }: { config: ConnectConfig; label: string }) {
  const [phase, setPhase] = useState<Phase>("idle");
  const code = useRef<string | null>(null);
  const session = useRef<SessionInfo | null>(null);
  const finishRef = useRef<() => void>(() => {});

  useEffect(() => {
    function finish() {
      if (!code.current || !session.current?.waba_id) return;
      setPhase("processing");
      const params = new URLSearchParams({ code: code.current, shared_waba_id: session.current.waba_id, state: config.state });
      if (session.current.phone_number_id) params.set("phone_number_id", session.current.phone_number_id);
      window.location.assign(`/embedded-callback?${params}`);
    }
    function onMessage(event: MessageEvent) {
      const trusted =
        config.mode === "sandbox" ? event.origin === window.location.origin : /^https:\/\/([\w-]+\.)*facebook\.com$/.test(event.origin);
      if (!trusted || typeof event.data !== "string") return;
      let data: { type?: string; event?: string; data?: SessionInfo; authResponse?: { code?: string } | null };
      try {
        data = JSON.parse(event.data);
      } catch {
        return; // the SDK also posts messages that are not JSON
      }
      if (data.type === "WA_EMBEDDED_SIGNUP") {
        if (data.event === "CANCEL") setPhase("cancelled");
        else if (data.event === "ERROR") setPhase("error");
        else if (data.event?.startsWith("FINISH")) {
          session.current = data.data ?? null;
          finish();
        }
      } else if (data.type === "JUMBE_SANDBOX_AUTH_RESPONSE") {
        if (data.authResponse?.code) {
          code.current = data.authResponse.code;
          finish();
        } else setPhase((p) => (p === "waiting" ? "cancelled" : p));
      }
    }
    window.addEventListener("message", onMessage);
    finishRef.current = finish;
    return () => window.removeEventListener("message", onMessage);
  }, [config.mode, config.state]);

  function startSandbox(event: React.MouseEvent<HTMLAnchorElement>) {
    if (!config.dialogUrl) return;
    const popupUrl = config.dialogUrl.replace("display=page", "display=popup");
    const popup = window.open(popupUrl, "jumbe-embedded-signup", "popup,width=620,height=760");
    // Popup blocked: the plain link takes the page itself through the dialog.
    if (!popup) return;
    event.preventDefault();
    code.current = null;
    session.current = null;
    setPhase("waiting");
  }

  function startFacebook() {
    setPhase("waiting");
    code.current = null;
    session.current = null;
    const login = () =>
      window.FB!.login(
        (response) => {
          if (response.authResponse?.code) {
            code.current = response.authResponse.code;
            finishRef.current();
          } else setPhase("cancelled");
        },
        { config_id: config.configId, response_type: "code", override_default_response_type: true, extras: { setup: {} } },
      );
    if (window.FB) return login();
    window.fbAsyncInit = () => {
      window.FB!.init({ appId: config.appId, autoLogAppEvents: true, xfbml: true, version: config.graphVersion });
      login();
    };
    const script = document.createElement("script");
    script.src = "https://connect.facebook.net/en_US/sdk.js";
    script.async = true;
    script.crossOrigin = "anonymous";
    script.onerror = () => setPhase("error");
    document.head.appendChild(script);
  }

  const busy = phase === "waiting" || phase === "processing";
  return (
    <div className="space-y-3">
      {config.mode === "sandbox" && config.dialogUrl ? (
        <a href={config.dialogUrl} onClick={startSandbox} className={BUTTON} aria-disabled={busy} data-testid="connect-whatsapp">
          {busy ? <LoaderCircle className="size-5 animate-spin" aria-hidden /> : <MessageCircle className="size-5" aria-hidden />}
          {label}
        </a>
      ) : (
        <>
          <button type="button" onClick={startFacebook} disabled={busy} className={BUTTON} data-testid="connect-whatsapp">
            {busy ? <LoaderCircle className="size-5 animate-spin" aria-hidden /> : <MessageCircle className="size-5" aria-hidden />}
            {label}
          </button>
          <noscript>
            <p className="text-sm text-amber-700">
              Meta&apos;s signup window needs JavaScript. Turn it on for this page to connect your account.
            </p>
          </noscript>
        </>
      )}
      <p className="text-sm text-slate-600" aria-live="polite" data-testid="connect-phase">
        {phase === "waiting" && "Finish the steps in Meta's window..."}
        {phase === "processing" && "Processing..."}
        {phase === "cancelled" && "Signup was closed before it finished. You can start again at any time."}
        {phase === "error" && "Meta's signup window could not be opened. Please try again."}
      </p>
    </div>
  );
}
