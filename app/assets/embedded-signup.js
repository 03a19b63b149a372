// Embedded Signup on the WhatsApp Setup page, a page without React (docs/decisions/066 and 067).
//
// The page draws `[data-embedded-signup]` with its configuration as JSON (mode, appId, configId,
// graphVersion, state) around the connect control, and a `[data-signup-phase]` line for what is
// happening, which carries the words of each phase in the page's language (data-waiting,
// data-processing, data-cancelled, data-error). Two channels bring the result, in either order: the code (Facebook's login callback, or
// in sandbox mode the sandbox's JUMBE_SANDBOX_AUTH_RESPONSE message) and the account (Meta's
// WA_EMBEDDED_SIGNUP message). With both, the browser goes to /embedded-callback, where the server
// does the rest within the code's 30 seconds.
//
// Without JavaScript: in sandbox mode the control is a link that takes the page itself through the
// sandbox's dialog; with Facebook the page says Meta's window needs JavaScript.
//
// Once the control is wired, the root carries `data-ready` (a click before that, on a slow network,
// follows the plain link: the same dialog in the page).

function embeddedSignup(root) {
  let config;
  try {
    config = JSON.parse(root.dataset.embeddedSignup ?? "");
  } catch {
    return;
  }
  const control = root.querySelector("[data-testid=connect-whatsapp]");
  const phaseLine = root.querySelector("[data-signup-phase]");
  const busyIcon = root.querySelector("[data-busy-icon]");
  const idleIcon = root.querySelector("[data-idle-icon]");
  if (!control || !phaseLine) return;
  let phase = "idle";
  let code = null;
  let session = null;

  const show = (next) => {
    phase = next;
    const busy = next === "waiting" || next === "processing";
    phaseLine.textContent = next === "idle" ? "" : (phaseLine.dataset[next] ?? "");
    if (control instanceof HTMLButtonElement) control.disabled = busy;
    else control.setAttribute("aria-disabled", String(busy));
    if (busyIcon && idleIcon) {
      busyIcon.hidden = !busy;
      idleIcon.hidden = busy;
    }
  };

  const finish = () => {
    if (!code || !session?.waba_id) return;
    show("processing");
    const params = new URLSearchParams({ code, shared_waba_id: session.waba_id, state: config.state });
    if (session.phone_number_id) params.set("phone_number_id", session.phone_number_id);
    location.assign(`/embedded-callback?${params}`);
  };

  addEventListener("message", (event) => {
    const trusted =
      config.mode === "sandbox" ? event.origin === location.origin : /^https:\/\/([\w-]+\.)*facebook\.com$/.test(event.origin);
    if (!trusted || typeof event.data !== "string") return;
    let data;
    try {
      data = JSON.parse(event.data);
    } catch {
      return; // the SDK also posts messages that are not JSON
    }
    if (data?.type === "WA_EMBEDDED_SIGNUP") {
      if (data.event === "CANCEL") show("cancelled");
      else if (data.event === "ERROR") show("error");
      else if (typeof data.event === "string" && data.event.startsWith("FINISH")) {
        session = data.data ?? null;
        finish();
      }
    } else if (data?.type === "JUMBE_SANDBOX_AUTH_RESPONSE") {
      if (data.authResponse?.code) {
        code = data.authResponse.code;
        finish();
      } else if (phase === "waiting") show("cancelled");
    }
  });

  const start = () => {
    code = null;
    session = null;
    show("waiting");
  };

  if (control instanceof HTMLAnchorElement) {
    // Sandbox: the dialog in a popup; a blocked popup leaves the plain link to take the page there.
    control.addEventListener("click", (event) => {
      if (control.getAttribute("aria-disabled") === "true") return event.preventDefault();
      const popupUrl = control.href.replace("display=page", "display=popup");
      const popup = open(popupUrl, "jumbe-embedded-signup", "popup,width=620,height=760");
      if (!popup) return;
      event.preventDefault();
      start();
    });
    root.dataset.ready = "true";
    return;
  }

  control.addEventListener("click", () => {
    start();
    const login = () =>
      window.FB.login(
        (response) => {
          if (response?.authResponse?.code) {
            code = response.authResponse.code;
            finish();
          } else show("cancelled");
        },
        { config_id: config.configId, response_type: "code", override_default_response_type: true, extras: { setup: {} } },
      );
    if (window.FB) return login();
    window.fbAsyncInit = () => {
      window.FB.init({ appId: config.appId, autoLogAppEvents: true, xfbml: true, version: config.graphVersion });
      login();
    };
    const script = document.createElement("script");
    script.src = "https://connect.facebook.net/en_US/sdk.js";
    script.async = true;
    script.crossOrigin = "anonymous";
    script.onerror = () => show("error");
    document.head.appendChild(script);
  });
  root.dataset.ready = "true";
}

for (const root of document.querySelectorAll("[data-embedded-signup]")) embeddedSignup(root);
