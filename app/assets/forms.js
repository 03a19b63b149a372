// The form behaviours that need a script, on server-rendered HTML, with or without React
// (docs/decisions/060). Every one is an enhancement: without it the form is complete and the server
// checks and answers everything.
//
// Pages rendered without React (`handle.hydrate: false`: sign-in, sign-up, codes, password reset,
// invitations) load this file as their page script: it enhances the whole document and shows a
// pressed submit button as busy. Hydrated pages import it on demand from the kit's components
// (`useEnhanced`), which pass it their own element.
//
// It holds no words: the ones it says come in the page's language from data attributes the server
// wrote on the elements (issue 43), and without one it says only what the element already said.
//
//  - [data-password-toggle]: a hidden "Show password" button beside a password input. Shown, and
//    it switches the input between password and text; its name is [data-show-label] or
//    [data-hide-label] as it goes.
//  - [data-otp-boxes]: six one-digit inputs. Non-digits are dropped, typing moves on, Backspace on
//    an empty box goes back, arrows move, a pasted code fills every box.
//  - [data-strength-for="<input id>"]: a hidden strength meter for that input (spec section 5), its
//    words in [data-word-weak], [data-word-fair], [data-word-good] and [data-word-strong].
//  - [data-countdown="<seconds>"]: a button that stays disabled, saying [data-countdown-text] with
//    its {seconds} filled in ("<label> in Ns"), until then.
//  - [data-copy="<text>"]: a hidden button that copies the text to the clipboard. Shown; a press
//    copies and marks it data-copied for two seconds (its [data-copy-label] says [data-copied-label],
//    "Copied").
//  - form[data-suggest="<address>"]: a search box that lists what it finds as one types (issue 74).
//    Once typing pauses it asks <address>?q= (JSON: { query, hits: [{ title, detail?, section, to }] }),
//    one request a pause, the older one cancelled; the hits are links in a list the script adds under
//    the box, the down and up arrows move through them and Escape closes the list. Its words:
//    [data-suggest-count] (with {count}) said to screen readers, and [data-suggest-none] (with
//    {query}). Enter still submits the form: the search page.
//  - whole documents only: a button pressed to post its form is disabled and marked busy until the
//    next page; with [data-pending-text] (any form) it also says so.
//  - whole documents only: a URL dialog the server drew open (`dialog[data-close-href]`, the kit's
//    UrlDialog) becomes modal: the focus stays inside, the page behind is inert, and Escape goes to
//    the page without it, as its Close link does.

const DONE = "enhanced";

/** Elements under `root` (and `root` itself) matching `selector`, not enhanced yet. */
function fresh(root, selector) {
  const found = [...root.querySelectorAll(selector)];
  if (root instanceof Element && root.matches(selector)) found.unshift(root);
  return found.filter((element) => {
    if (element.dataset[DONE]) return false;
    element.dataset[DONE] = "true";
    return true;
  });
}

function passwordToggles(root) {
  for (const button of fresh(root, "[data-password-toggle]")) {
    const input = button.parentElement?.querySelector("input");
    if (!input) continue;
    const showLabel = button.dataset.showLabel ?? button.getAttribute("aria-label") ?? "";
    const hideLabel = button.dataset.hideLabel ?? showLabel;
    button.setAttribute("aria-label", input.type === "password" ? showLabel : hideLabel);
    button.hidden = false;
    button.addEventListener("click", () => {
      const show = input.type === "password";
      input.type = show ? "text" : "password";
      button.setAttribute("aria-pressed", String(show));
      button.setAttribute("aria-label", show ? hideLabel : showLabel);
    });
  }
}

function otpBoxes(root) {
  for (const group of fresh(root, "[data-otp-boxes]")) {
    const boxes = [...group.querySelectorAll("input")];
    const focus = (index) => boxes[Math.max(0, Math.min(boxes.length - 1, index))]?.focus();
    const fill = (start, digits) => {
      [...digits].forEach((digit, offset) => {
        if (boxes[start + offset]) boxes[start + offset].value = digit;
      });
      focus(start + digits.length);
    };
    boxes.forEach((box, index) => {
      box.addEventListener("input", () => {
        const digits = box.value.replace(/\D/g, "");
        box.value = digits.slice(0, 1);
        if (digits.length > 1) fill(index, digits.slice(0, boxes.length - index));
        else if (digits) focus(index + 1);
      });
      box.addEventListener("keydown", (event) => {
        if (event.key === "Backspace" && !box.value && index > 0) {
          event.preventDefault();
          boxes[index - 1].value = "";
          focus(index - 1);
        } else if (event.key === "ArrowLeft") focus(index - 1);
        else if (event.key === "ArrowRight") focus(index + 1);
      });
      box.addEventListener("paste", (event) => {
        const digits = (event.clipboardData?.getData("text") ?? "").replace(/\D/g, "");
        if (!digits) return;
        event.preventDefault();
        fill(index, digits.slice(0, boxes.length - index));
      });
      box.addEventListener("focus", () => box.select());
    });
  }
}

const STRENGTH_COLORS = { Weak: "bg-red-500", Fair: "bg-amber-500", Good: "bg-sky-500", Strong: "bg-brand-600" };
const STRENGTH_RULES = [/.{8,}/, /[A-Z]/, /[a-z]/, /\d/, /[^A-Za-z0-9]/];

/**
 * Spec section 5: one point each for length >= 8, uppercase, lowercase, digit, special character.
 * The label is the rating's key; the meter shows the page's word for it.
 */
export function passwordStrength(password) {
  const score = STRENGTH_RULES.filter((rule) => rule.test(password)).length;
  const label = score < 2 ? "Weak" : score === 2 ? "Fair" : score === 3 ? "Good" : "Strong";
  return { score, label };
}

function strengthMeters(root) {
  for (const meter of fresh(root, "[data-strength-for]")) {
    const input = document.getElementById(meter.dataset.strengthFor);
    if (!input) continue;
    const bars = meter.querySelectorAll("[data-bar]");
    const label = meter.querySelector("[data-label]");
    // The page's words for each rating ("data-word-weak"); the rating's key when there is none.
    const words = (rating) => meter.dataset[`word${rating}`] ?? rating;
    const update = () => {
      const { score, label: rating } = passwordStrength(input.value);
      bars.forEach((bar, i) => {
        bar.classList.remove("bg-slate-200", ...Object.values(STRENGTH_COLORS));
        bar.classList.add(i < score ? STRENGTH_COLORS[rating] : "bg-slate-200");
      });
      label.textContent = words(input.value ? rating : "Weak");
    };
    input.addEventListener("input", update);
    update();
    meter.hidden = false;
  }
}

function countdowns(root) {
  for (const button of fresh(root, "[data-countdown]")) {
    const seconds = Number(button.dataset.countdown);
    if (!(seconds > 0)) continue;
    const label = button.textContent;
    // "Resend OTP in {seconds}s", in the page's language; without it, the label and the seconds.
    const counting = button.dataset.countdownText ?? `${label} {seconds}`;
    const started = Date.now();
    const tick = () => {
      const left = Math.max(0, seconds - Math.floor((Date.now() - started) / 1000));
      button.disabled = left > 0;
      button.textContent = left > 0 ? counting.replaceAll("{seconds}", String(left)) : label;
      if (left === 0) clearInterval(timer);
    };
    const timer = setInterval(tick, 250);
    tick();
  }
}

function copyButtons(root) {
  if (!navigator.clipboard) return;
  for (const button of fresh(root, "[data-copy]")) {
    const label = button.querySelector("[data-copy-label]");
    const idle = label?.textContent ?? "";
    let timer;
    button.hidden = false;
    button.addEventListener("click", async () => {
      await navigator.clipboard.writeText(button.dataset.copy ?? "");
      button.dataset.copied = "true";
      if (label) label.textContent = button.dataset.copiedLabel ?? idle;
      clearTimeout(timer);
      timer = setTimeout(() => {
        delete button.dataset.copied;
        if (label) label.textContent = idle;
      }, 2000);
    });
  }
}

/** How long typing must pause before a search box asks: one request a pause, not one a key (slow networks). */
const SUGGEST_PAUSE_MS = 250;
/** As the search itself refuses shorter queries (app/.server/domains/search/registry.ts). */
const SUGGEST_MIN_LENGTH = 2;

function searchSuggestions(root) {
  for (const form of fresh(root, "form[data-suggest]")) {
    const input = form.querySelector("input[name=q]");
    if (!input) continue;
    // The list and what a screen reader hears of it are the script's: without it there are no suggestions.
    const status = document.createElement("p");
    status.className = "sr-only";
    status.setAttribute("aria-live", "polite");
    const list = document.createElement("div");
    list.id = `${input.id}-suggestions`;
    list.hidden = true;
    list.dataset.testid = "search-suggestions";
    list.className = "absolute inset-x-0 top-full z-30 mt-1 overflow-hidden rounded-lg border border-slate-200 bg-white text-sm shadow-lg";
    form.append(status, list);
    input.autocomplete = "off";
    input.setAttribute("aria-controls", list.id);
    const typed = () => input.value.replace(/\s+/g, " ").trim();
    let timer;
    let pending;
    let shown = "";
    const close = () => {
      list.hidden = true;
      list.replaceChildren();
      shown = "";
      status.textContent = "";
    };
    const show = (query, hits) => {
      shown = query;
      if (!hits.length) {
        const none = document.createElement("p");
        none.className = "px-3 py-2 text-slate-600";
        none.textContent = (form.dataset.suggestNone ?? "").replace("{query}", query);
        list.replaceChildren(none);
      } else {
        const items = document.createElement("ul");
        items.className = "max-h-80 divide-y divide-slate-100 overflow-y-auto";
        for (const hit of hits) {
          const link = document.createElement("a");
          link.href = hit.to;
          link.className = "block px-3 py-2 hover:bg-slate-50 focus:bg-slate-50 focus:outline-none";
          const title = document.createElement("span");
          title.className = "block truncate font-medium text-slate-900";
          title.textContent = hit.title;
          const where = document.createElement("span");
          where.className = "block truncate text-xs text-slate-600";
          where.textContent = hit.detail ? `${hit.section} · ${hit.detail}` : hit.section;
          link.append(title, where);
          const item = document.createElement("li");
          item.append(link);
          items.append(item);
        }
        list.replaceChildren(items);
      }
      list.hidden = false;
      status.textContent = (form.dataset.suggestCount ?? "").replace("{count}", String(hits.length));
    };
    const ask = async (query) => {
      pending?.abort();
      pending = new AbortController();
      const address = new URL(form.dataset.suggest, location.href);
      address.searchParams.set("q", query);
      try {
        const response = await fetch(address, { headers: { accept: "application/json" }, signal: pending.signal });
        if (!response.ok) return close();
        const answer = await response.json();
        // Only the answer to what the box holds now.
        if (answer.query === typed()) show(answer.query, Array.isArray(answer.hits) ? answer.hits : []);
      } catch {
        // Cancelled, or offline: the box is still a search form.
      }
    };
    input.addEventListener("input", () => {
      clearTimeout(timer);
      const query = typed();
      if (query.length < SUGGEST_MIN_LENGTH) {
        pending?.abort();
        return close();
      }
      if (query === shown) return;
      timer = setTimeout(() => ask(query), SUGGEST_PAUSE_MS);
    });
    form.addEventListener("keydown", (event) => {
      if (list.hidden) return;
      const links = [...list.querySelectorAll("a")];
      if (event.key === "Escape") {
        // Only the list closes: a search box would also empty itself (a second Escape does).
        event.preventDefault();
        close();
        input.focus();
        return;
      }
      if ((event.key !== "ArrowDown" && event.key !== "ArrowUp") || !links.length) return;
      event.preventDefault();
      const at = links.indexOf(document.activeElement);
      const next = event.key === "ArrowDown" ? Math.min(at + 1, links.length - 1) : at - 1;
      if (next < 0) input.focus();
      else links[next].focus();
    });
    // Leaving the box and its list closes the list; typing again opens it.
    form.addEventListener("focusout", (event) => {
      if (!(event.relatedTarget instanceof Node && form.contains(event.relatedTarget))) close();
    });
  }
}

/** Every behaviour above, on `root` and what it holds; each element once. */
export function enhance(root) {
  passwordToggles(root);
  otpBoxes(root);
  strengthMeters(root);
  countdowns(root);
  copyButtons(root);
  searchSuggestions(root);
}

/** A whole document without React: the button that submitted says it is working until the next page. */
function pendingSubmits() {
  document.addEventListener("submit", (event) => {
    const button = event.submitter;
    if (event.defaultPrevented || !button) return;
    // A search or a filter (a GET) may answer with a download and leave the page: only a post is held.
    const posted = (button.getAttribute("formmethod") ?? event.target.getAttribute("method") ?? "").toLowerCase() === "post";
    if (!posted && !button.dataset.pendingText) return;
    // After the browser has read the form (a disabled button's name and value would be left out).
    setTimeout(() => {
      button.dataset.held = "true";
      if (button.dataset.pendingText) {
        button.dataset.idleText = button.textContent;
        button.textContent = button.dataset.pendingText;
      }
      button.disabled = true;
      button.setAttribute("aria-busy", "true");
    });
  });
  // Back to this page from the browser's cache: the buttons work again.
  addEventListener("pageshow", () => {
    for (const button of document.querySelectorAll("button[data-held]")) {
      if (button.dataset.idleText !== undefined) button.textContent = button.dataset.idleText;
      button.disabled = false;
      button.removeAttribute("aria-busy");
      delete button.dataset.idleText;
      delete button.dataset.held;
    }
  });
}

/** A whole document without React: the dialog the server drew open is made modal. */
function modalDialogs() {
  for (const dialog of document.querySelectorAll("dialog[open][data-close-href]")) {
    if (typeof dialog.showModal !== "function") continue;
    dialog.close();
    dialog.showModal();
    // Escape closes a modal dialog: the page follows, as after its Close link. The close() above
    // sends its own close event after showModal(), when the dialog is open again: that one is let be.
    dialog.addEventListener("close", () => {
      if (dialog.open) return;
      // The kit writes it relative ("?" when nothing else is in the query): the page's own address without the dialog.
      const to = new URL(dialog.dataset.closeHref, location.href);
      location.replace(to.pathname + to.search + to.hash);
    });
  }
}

// Loaded as a page's own script (no React Router on the page): the whole document, now.
if (typeof window !== "undefined" && !window.__reactRouterContext) {
  enhance(document);
  pendingSubmits();
  modalDialogs();
}
