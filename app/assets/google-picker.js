// The Google Picker on the Google Sheets page, a page without React (issue 73, docs/decisions/109).
//
// With the drive.file scope Jumbe opens only the spreadsheets it created and those the user chose
// with the Picker, which grants Jumbe that one file. The page's root carries `[data-google-picker]`,
// its configuration as JSON (app/.server/domains/integrations/google-sheets/picker.ts); each form
// that takes a spreadsheet holds a `[data-picker-control]`: a hidden button this script shows, and a
// `[data-picker-status]` line with the words of each phase in the page's language.
//
// A click asks Jumbe for the Google access token the Picker opens with, then:
// - sandbox: the Google sandbox's stand-in Picker in a window (a form posted to it, so the token is
//   not in a URL), which posts Google's callback data back to this window;
// - google: Google's loader (apis.google.com/js/api.js), fetched only now, and google.picker.
// On `{action: "picked", docs: [{id, name}]}` the form's spreadsheet field gets the file's id.
//
// Without JavaScript nothing here runs: the page says to create a new sheet instead.

const PICKER_WINDOW = "jumbe-google-picker";

function googlePicker(root) {
  let config;
  try {
    config = JSON.parse(root.dataset.googlePicker ?? "");
  } catch {
    return;
  }

  const token = async () => {
    const response = await fetch(config.tokenUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "",
    });
    if (!response.ok) throw new Error(`picker token: ${response.status}`);
    const json = await response.json();
    if (typeof json.oauthToken !== "string") throw new Error("picker token: none");
    return json.oauthToken;
  };

  let loader = null;
  const loadGoogle = () =>
    (loader ??= new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = config.scriptUrl;
      script.async = true;
      script.onload = () => window.gapi.load("picker", { callback: resolve, onerror: reject });
      script.onerror = reject;
      document.head.appendChild(script);
    }));

  for (const control of root.querySelectorAll("[data-picker-control]")) {
    const button = control.querySelector("[data-picker-button]");
    const status = control.querySelector("[data-picker-status]");
    const field = control.closest("form")?.querySelector("input[name=spreadsheet]");
    if (!button || !status || !field) continue;
    let listener = null;

    const say = (phase, name) => {
      status.textContent = (status.dataset[phase] ?? "").replace("{name}", name ?? "");
      button.disabled = phase === "opening";
    };

    // Google's callback data, from either Picker.
    const answered = (data) => {
      if (!data || typeof data !== "object") return;
      if (data.action === "picked" && Array.isArray(data.docs) && typeof data.docs[0]?.id === "string") {
        field.value = data.docs[0].id;
        say("chosen", typeof data.docs[0].name === "string" ? data.docs[0].name : data.docs[0].id);
        field.focus();
      } else if (data.action === "cancel") say("cancelled");
    };

    const openSandbox = async () => {
      // Opened now, within the click (a window opened after an await is a blocked popup).
      const popup = open("", PICKER_WINDOW, "popup,width=620,height=720");
      if (!popup) return say("failed");
      const oauthToken = await token();
      const pickerOrigin = new URL(config.pickerUrl, location.href).origin;
      if (listener) removeEventListener("message", listener);
      listener = (event) => {
        if (event.origin !== pickerOrigin || event.source !== popup) return;
        answered(event.data);
      };
      addEventListener("message", listener);
      const form = document.createElement("form");
      form.method = "post";
      form.action = config.pickerUrl;
      form.target = PICKER_WINDOW;
      for (const [name, value] of Object.entries({ oauth_token: oauthToken, origin: location.origin })) {
        const input = document.createElement("input");
        input.type = "hidden";
        input.name = name;
        input.value = value;
        form.appendChild(input);
      }
      document.body.appendChild(form);
      form.submit();
      form.remove();
    };

    const openGoogle = async () => {
      const [oauthToken] = await Promise.all([token(), loadGoogle()]);
      const picker = window.google.picker;
      new picker.PickerBuilder()
        .addView(picker.ViewId.SPREADSHEETS)
        .setOAuthToken(oauthToken)
        .setDeveloperKey(config.developerKey)
        .setAppId(config.appId)
        .setOrigin(location.origin)
        .setCallback(answered)
        .build()
        .setVisible(true);
    };

    button.addEventListener("click", () => {
      say("opening");
      (config.mode === "sandbox" ? openSandbox() : openGoogle()).then(
        () => {
          if (status.textContent === status.dataset.opening) button.disabled = false;
        },
        () => say("failed"),
      );
    });
    button.hidden = false;
  }
  root.dataset.pickerReady = "true";
}

for (const root of document.querySelectorAll("[data-google-picker]")) googlePicker(root);
