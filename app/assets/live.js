// The live parts of a page without React (docs/decisions/067), each drawn by the server; the page
// loads this file beside forms.js when it has one of them. Without JavaScript each works by a post
// or a reload.
//
//  - [data-live-events="<url>"]: a server-sent events stream, whose [data-live-on] event ("message"
//    unless given) says the page has changed (a campaign's figures as it sends). On each the page is
//    read again (one read at a time, at most one a second) and each [data-live-region] of the fresh
//    page replaces the element of the same id if the server drew it differently this time: a region
//    drawn as before is left alone, so what someone is typing or choosing in it stays, and one that
//    holds the focus waits for the next read. `end` closes the stream for good. A stream the server
//    refused (a 503 while the database restarts, a proxy's 502) is reopened after a pause that grows
//    to half a minute, the page read first; a dropped connection the browser reopens by itself.
//    Without JavaScript the page refreshes itself (<noscript><meta http-equiv="refresh">), or has a
//    link to check again (the inbox). Several event names may be given; [data-live-match] and
//    [data-live-distinct] spare reads (see follow()). A [data-live-status] element says so while the
//    stream is open (its [data-live-text]).
//  - [data-live-from="<url>"]: a part drawn by another page (the inbox's list beside a conversation
//    on a wide screen, [data-live-media]), read from it when the page opens and on each event.
//  - [data-live-scroll="end"]: a box that opens at its end and stays there as regions change (a thread).
//  - a POST form [data-live-send] is sent without leaving the page, its answer's regions put in place
//    (the inbox's reply and note; docs/decisions/069), with the composer's keys and helpers: see
//    liveSends().
//  - a GET form [data-live-form="<id>"] follows its fields: a change asks the server for the form's
//    answer (as its submit button would, the address unchanged) and puts that answer's element of
//    that id in place of the page's (the Message Preview). A field marked [data-live-submit] submits
//    the form instead (another template: another page of fields).
//  - a select [data-redraws="<id>"] in any form: a choice asks the server for the page with that
//    choice in its address (`?<name>=<value>`) and puts its element of that id in place of the
//    page's (a campaign's template and its placeholders). Its form's button marked
//    [data-redraw-fallback] (which asks the server for the same, posting the form) is hidden; it is
//    pressed when the page cannot be read.
//  - a POST form [data-live-post="<intent>"] follows its fields (the template editor): a change posts
//    the form's fields, without its files, with that intent (the one its no-script button
//    [data-live-fallback] posts, so the server answers the same form redrawn: the preview, the
//    example fields) and each [data-live-region] of the answer is put in place as the stream's are
//    (one drawn as before, or holding the focus, stays). A select marked [data-live-submit="<value>"]
//    presses the form's first no-script button instead when the choice goes to or from that value
//    (a template's type to or from Authentication: another form, the whole form posted). A chosen image
//    shows at once in the form's [data-live-image] element (the preview's header) from the browser's
//    copy of the file, before anything is sent; its text alternative is that element's
//    [data-live-image-alt] (the server's words before the file's name: "Header image: ").
//
// Words this script writes come from the page (data attributes the server drew in the page's
// language), never from here.

const MIN_GAP_MS = 1000;
const MAX_PAUSE_MS = 30_000;

/** The server's drawing of each region, by id, as last put on the page. */
const drawn = new Map();

function remember(root) {
  for (const region of root.querySelectorAll("[data-live-region][id]")) drawn.set(region.id, region.outerHTML);
}

/** Scrolled boxes that show their end ([data-live-scroll="end"]: a thread): those at their end stay there. */
function scrollers() {
  return [...document.querySelectorAll('[data-live-scroll="end"]')].map((box) => ({
    box,
    atEnd: box.scrollHeight - box.scrollTop - box.clientHeight < 40,
  }));
}

/**
 * Puts each region of `fresh` drawn differently from the page's in its place. One holding the focus
 * waits, unless it is `force` (the form that was just sent: the server drew it afresh).
 */
/** The forms a region holds, by address and kind: the same means the same forms drawn again. */
function formsOf(region) {
  return [...region.querySelectorAll("form")].map((form) => `${form.getAttribute("action")} ${form.getAttribute("method")}`).join("|");
}

function swap(fresh, force) {
  const boxes = scrollers();
  for (const region of fresh.querySelectorAll("[data-live-region][id]")) {
    const current = document.getElementById(region.id);
    if (!current) continue;
    // The form just sent is drawn as the server drew it, even the same (what was typed is not in the HTML).
    if (region.id !== force) {
      if (drawn.get(region.id) === region.outerHTML) continue;
      const focused = document.activeElement;
      if (focused && focused !== document.body && current.contains(focused)) continue;
      // A form showing the server's refusal keeps it until it is sent again: a colleague's event
      // (typing, a new message) would draw the same form without the words at its field.
      if (current.querySelector('[aria-invalid="true"]') && formsOf(current) === formsOf(region)) continue;
    }
    current.replaceWith(document.importNode(region, true));
    drawn.set(region.id, region.outerHTML);
  }
  for (const { box, atEnd } of boxes) if (atEnd) box.scrollTop = box.scrollHeight;
  sendButtons();
}

/**
 * Parts of the page drawn by another page ([data-live-from="<url>"], when [data-live-media] matches:
 * the inbox's list beside a conversation on a wide screen). Each is read from its page (its element
 * of the same id) when the page opens, when the screen grows wide enough, and on each event of the
 * page's stream. The link to this page in it is marked current.
 */
const sideDrawn = new Map();

function sides() {
  return [...document.querySelectorAll("[data-live-from][id]")].filter(
    (side) => !side.dataset.liveMedia || window.matchMedia(side.dataset.liveMedia).matches,
  );
}

async function readSide(side) {
  const response = await fetch(new URL(side.dataset.liveFrom, location.href), { headers: { Accept: "text/html" } });
  if (!response.ok || response.redirected) return;
  const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById(side.id);
  const current = document.getElementById(side.id);
  if (!fresh || !current || sideDrawn.get(side.id) === fresh.outerHTML) return;
  const focused = document.activeElement;
  if (sideDrawn.has(side.id) && focused && focused !== document.body && current.contains(focused)) return;
  sideDrawn.set(side.id, fresh.outerHTML);
  const placed = document.importNode(fresh, true);
  placed.removeAttribute("data-live-region");
  placed.dataset.liveFrom = side.dataset.liveFrom;
  if (side.dataset.liveMedia) placed.dataset.liveMedia = side.dataset.liveMedia;
  for (const link of placed.querySelectorAll("a[href]"))
    if (new URL(link.href, location.href).pathname === location.pathname) link.setAttribute("aria-current", "page");
  current.replaceWith(placed);
}

async function readSides() {
  await Promise.all(sides().map((side) => readSide(side).catch(() => undefined)));
}

function liveSides() {
  const all = document.querySelectorAll("[data-live-from][id]");
  if (!all.length) return;
  void readSides();
  for (const media of new Set([...all].map((side) => side.dataset.liveMedia).filter(Boolean)))
    window.matchMedia(media).addEventListener("change", (event) => {
      if (event.matches) void readSides();
    });
}

/**
 * Follows the page's stream: each of its events (names in [data-live-on]) reads the page again, and
 * the parts drawn by other pages. With [data-live-match], an event whose data does not name that
 * (another conversation) reads only the other pages' parts; with [data-live-distinct], an event
 * repeating its name's last data is dropped. A hidden page waits until it is shown again.
 */
function follow(source) {
  const url = new URL(source.dataset.liveEvents, location.href).href;
  const names = (source.dataset.liveOn || "message").split(" ");
  const match = source.dataset.liveMatch;
  const distinct = source.hasAttribute("data-live-distinct");
  const status = document.querySelector("[data-live-status]");
  const offline = status?.textContent;
  const last = new Map();
  let reading = false;
  let again = false;
  let lastRead = 0;
  let failures = 0;
  let ended = false;
  let wantPage = false;
  let wantSides = false;
  let stream;

  const read = async () => {
    if (document.hidden) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    const wait = lastRead + MIN_GAP_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    again = false;
    lastRead = Date.now();
    const page = wantPage;
    const others = wantSides;
    wantPage = wantSides = false;
    try {
      if (page) {
        const response = await fetch(location.href, { headers: { Accept: "text/html" } });
        // A sign-in page, an error page: the regions stay as they are until a read answers the page.
        if (response.ok && !response.redirected) swap(new DOMParser().parseFromString(await response.text(), "text/html"));
      }
      if (others) await readSides();
    } catch {
      // offline for a moment: the next event reads again
    }
    reading = false;
    if (again) read();
  };
  const changed = (data) => {
    if (!match || String(data).includes(match)) wantPage = true;
    wantSides = true;
    read();
  };

  const open = () => {
    stream = new EventSource(url);
    for (const name of names)
      stream.addEventListener(name, (event) => {
        failures = 0;
        if (distinct && last.get(name) === event.data) return;
        last.set(name, event.data);
        changed(event.data);
      });
    stream.addEventListener("end", () => {
      ended = true;
      stream.close();
    });
    stream.addEventListener("open", () => {
      if (status?.dataset.liveText) status.textContent = status.dataset.liveText;
    });
    stream.addEventListener("error", () => {
      if (status) status.textContent = offline;
      if (stream.readyState !== EventSource.CLOSED || ended) return;
      wantPage = wantSides = true;
      read();
      setTimeout(open, Math.min(MAX_PAUSE_MS, 2000 * 2 ** failures++));
    });
  };
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && (wantPage || wantSides)) read();
  });
  open();
}

const LIVE_DELAY_MS = 250;

/**
 * Reads `url` and puts its element `id` in place of this page's. Answers false when it could not
 * (signed out, an error page, offline) and `gone` when a newer read took over.
 */
async function redraw(url, id, signal) {
  const target = document.getElementById(id);
  target?.setAttribute("aria-busy", "true");
  try {
    const response = await fetch(url, { signal, headers: { Accept: "text/html" } });
    const html = await response.text();
    if (signal.aborted) return "gone";
    const fresh = new DOMParser().parseFromString(html, "text/html").getElementById(id);
    const current = document.getElementById(id);
    if (!fresh || !current || !response.ok) return false;
    current.replaceWith(document.importNode(fresh, true));
    return true;
  } catch (error) {
    return error?.name === "AbortError" ? "gone" : false;
  } finally {
    if (!signal.aborted) document.getElementById(id)?.removeAttribute("aria-busy");
  }
}

/** One read at a time per part of the page: a newer one cancels the one before. */
function latestOnly() {
  let asking;
  return (run) => {
    asking?.abort();
    asking = new AbortController();
    return run(asking.signal);
  };
}

const TYPED = "input:not([type=radio]):not([type=checkbox]), textarea";

/** A whole document without React: GET forms that redraw one part of the page as they change. */
function liveForms() {
  for (const form of document.querySelectorAll("form[data-live-form]")) {
    const targetId = form.dataset.liveForm;
    const latest = latestOnly();
    let timer;
    const read = () =>
      latest(async (signal) => {
        const url = new URL(form.getAttribute("action") || location.href, location.href);
        url.search = new URLSearchParams(new FormData(form)).toString();
        // Anything but the page (signed out, a new deployment, an error): the form's own page, as its button would.
        if ((await redraw(url, targetId, signal)) === false) form.requestSubmit();
      });
    const changed = (event, delay) => {
      if (event.target.closest?.("[data-live-submit]")) return form.requestSubmit();
      clearTimeout(timer);
      timer = setTimeout(read, delay);
    };
    // Typing waits for a pause; a choice (a radio, a select) redraws at once.
    form.addEventListener("input", (event) => {
      if (event.target.matches?.(TYPED)) changed(event, LIVE_DELAY_MS);
    });
    form.addEventListener("change", (event) => {
      if (!event.target.matches?.(TYPED)) changed(event, 0);
    });
  }
}

/** A whole document without React: selects whose choice redraws one part of the page. */
function redrawingSelects() {
  for (const select of document.querySelectorAll("select[data-redraws]")) {
    const fallback = select.form?.querySelector("[data-redraw-fallback]");
    if (fallback) fallback.hidden = true;
    const latest = latestOnly();
    select.addEventListener("change", () =>
      latest(async (signal) => {
        const url = new URL(location.href);
        url.searchParams.set(select.name, select.value);
        if ((await redraw(url, select.dataset.redraws, signal)) === false && fallback) select.form.requestSubmit(fallback);
      }),
    );
  }
}

/** The no-script buttons of the posting forms, hidden again in each freshly drawn region. */
function hideFallbacks() {
  for (const button of document.querySelectorAll("form[data-live-post] [data-live-fallback]")) button.hidden = true;
}

/**
 * A chosen image in place of the preview's header, until another is chosen or the page posts it. Its
 * text alternative: the holder's [data-live-image-alt] (the server's words, in the page's language)
 * and the file's name.
 */
function showChosenImage(form, chosen) {
  if (!chosen) return;
  for (const holder of form.ownerDocument.querySelectorAll("[data-live-image]")) {
    const image = document.createElement("img");
    const words = holder.dataset.liveImageAlt ?? "";
    image.src = chosen.url;
    image.alt = `${words}${chosen.name}`;
    image.className = holder.dataset.liveImage;
    holder.replaceWith(image);
  }
}

/** A whole document without React: POST forms whose fields the server redraws as they change. */
function livePosts() {
  const forms = document.querySelectorAll("form[data-live-post]");
  if (!forms.length) return;
  remember(document);
  hideFallbacks();
  for (const form of forms) {
    const intent = form.dataset.livePost;
    let asking;
    let timer;
    let chosen = null;
    const shapes = new Map([...form.querySelectorAll("select[data-live-submit]")].map((select) => [select, select.value]));
    const read = async () => {
      asking = new AbortController();
      const { signal } = asking;
      const body = new FormData();
      for (const [name, value] of new FormData(form)) if (typeof value === "string" && name !== "intent") body.append(name, value);
      body.append("intent", intent);
      try {
        const response = await fetch(form.action, { method: "POST", body, signal, headers: { Accept: "text/html" } });
        const html = await response.text();
        // Signed out, an error page: the form stays as it is, and its buttons post it as without scripts.
        if (signal.aborted || !response.ok || response.redirected) return;
        swap(new DOMParser().parseFromString(html, "text/html"));
        hideFallbacks();
        showChosenImage(form, chosen);
      } catch {
        // offline for a moment, or newer typing took over
      }
    };
    // Any new typing drops the answer on its way: it was drawn from fields that have changed since.
    const soon = (delay) => {
      asking?.abort();
      clearTimeout(timer);
      timer = setTimeout(read, delay);
    };
    form.addEventListener("input", (event) => {
      if (event.target.matches?.(TYPED) && event.target.type !== "file") soon(LIVE_DELAY_MS);
    });
    form.addEventListener("change", (event) => {
      const field = event.target;
      const was = shapes.get(field);
      if (was !== undefined) shapes.set(field, field.value);
      const fallback = form.querySelector("[data-live-fallback]");
      if (was !== undefined && fallback && [was, field.value].includes(field.dataset.liveSubmit)) return form.requestSubmit(fallback);
      if (field.type === "file") {
        if (chosen) URL.revokeObjectURL(chosen.url);
        const file = field.files?.[0];
        chosen = file && file.type.startsWith("image/") ? { url: URL.createObjectURL(file), name: file.name } : null;
        return showChosenImage(form, chosen);
      }
      if (!field.matches?.(TYPED)) soon(0);
    });
  }
}

/**
 * A form's submit button marked [data-needs-any="<field> <field>"] is disabled while every one of
 * those fields is blank (or a chosen file is over its limit): the composer waits for a message.
 */
function sendButtons() {
  for (const button of document.querySelectorAll("[data-needs-any]")) {
    const form = button.form;
    if (!form) continue;
    const filled = button.dataset.needsAny.split(" ").some((name) => {
      const field = form.elements.namedItem(name);
      if (!field) return false;
      if (field.type === "file") return field.files?.length > 0;
      return String(field.value ?? "").trim() !== "";
    });
    button.disabled = !filled || !!form.dataset.sending || !!form.querySelector("[data-too-big-shown]");
  }
}

/** The suggestions a [data-suggest-from="<select id>"] text field shows while it holds `/<shortcut>`. */
function suggest(field) {
  const select = document.getElementById(field.dataset.suggestFrom);
  field.parentElement.querySelector("[data-suggestions]")?.remove();
  const value = field.value;
  if (!select || !value.startsWith("/") || value.includes(" ") || value.includes("\n")) return;
  const typed = value.slice(1).toLowerCase();
  const found = [...select.options].filter((o) => o.dataset.body && o.text.slice(1).toLowerCase().startsWith(typed)).slice(0, 6);
  if (!found.length) return;
  const list = document.createElement("ul");
  list.dataset.suggestions = "";
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", select.dataset.suggestLabel || "");
  list.className = "absolute bottom-full left-0 z-10 mb-1 w-full rounded-lg border border-slate-200 bg-white shadow-lg";
  for (const option of found) {
    const item = document.createElement("li");
    item.setAttribute("role", "option");
    item.setAttribute("aria-selected", "false");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "block w-full px-3 py-1.5 text-left text-sm hover:bg-slate-50";
    const shortcut = document.createElement("span");
    shortcut.className = "font-semibold";
    shortcut.textContent = option.text;
    const body = document.createElement("span");
    body.className = "text-slate-600";
    body.textContent = option.dataset.body.slice(0, 80);
    button.append(shortcut, " ", body);
    button.addEventListener("click", () => insert(field, option.dataset.body));
    item.append(button);
    list.append(item);
  }
  field.after(list);
}

function insert(field, text) {
  field.value = text;
  field.parentElement.querySelector("[data-suggestions]")?.remove();
  field.focus();
  sendButtons();
}

/** A file field [data-max-bytes] over its limit says so ([data-too-big]) below its row, and the form waits. */
function checkFile(input) {
  const label = input.closest("label")?.querySelector("[data-file-name]");
  const file = input.files?.[0];
  if (label) label.textContent = file ? file.name : label.dataset.fileName;
  const errorId = input.dataset.errorId;
  let error = errorId ? document.getElementById(errorId) : null;
  const over = file && input.dataset.maxBytes && file.size > Number(input.dataset.maxBytes);
  if (over) {
    if (!error) {
      error = document.createElement("p");
      error.id = errorId;
      error.setAttribute("role", "alert");
      error.className = "mt-1 text-sm text-red-700";
      input.form?.append(error);
    }
    error.textContent = input.dataset.tooBig;
    error.dataset.tooBigShown = "";
    input.setAttribute("aria-invalid", "true");
  } else if (error?.dataset.tooBigShown !== undefined) {
    error.remove();
    input.removeAttribute("aria-invalid");
  }
  sendButtons();
}

const TYPING_EVERY_MS = 8000;
let lastTyping = 0;

/**
 * A POST form [data-live-send] (the inbox's reply and note) is sent without leaving the page: the
 * answer is the page drawn again (the thread with the message, the form empty, or the form with the
 * server's words at the field), whose regions are put in place, the form's own even though it holds
 * the focus. What was typed meanwhile stays. An answer that is not the page (signed out) is opened.
 * In it: Enter sends ([data-enter-sends], Shift and Enter a new line), `/` shows saved answers
 * ([data-suggest-from]), a choice of a [data-inserts-into] select puts its option's text in the
 * field, typing tells colleagues ([data-typing-signal]: a post of intent=typing now and then), and a
 * select [data-submits] in any form sends its form (the template picker).
 */
function liveSends() {
  document.addEventListener(
    "submit",
    async (event) => {
      const form = event.target;
      if (event.defaultPrevented || !form.matches?.("form[data-live-send]")) return;
      event.preventDefault();
      if (form.dataset.sending) return;
      const body = new FormData(form);
      if (event.submitter?.name) body.append(event.submitter.name, event.submitter.value);
      const region = form.closest("[data-live-region][id]")?.id;
      const field = form.querySelector("textarea");
      const sent = field?.value;
      const hadFocus = !!field && document.activeElement === field;
      const open = [...(form.closest("[data-live-region]")?.querySelectorAll("details[id]") ?? [])].filter((d) => d.open).map((d) => d.id);
      form.dataset.sending = "true";
      form.setAttribute("aria-busy", "true");
      sendButtons();
      try {
        const response = await fetch(form.action, { method: "POST", body, headers: { Accept: "text/html" } });
        const answered = new URL(response.url || location.href);
        if (answered.pathname !== location.pathname) return location.assign(answered.href);
        const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
        if (!fresh.querySelector("[data-live-region]")) return location.assign(answered.href);
        if (response.redirected && answered.href !== location.href) history.replaceState(history.state, "", answered.href);
        const typed = field && field.value !== sent ? field.value : null;
        swap(fresh, region);
        const again = region && document.getElementById(region);
        for (const id of open) document.getElementById(id)?.setAttribute("open", "");
        const next = again?.querySelector("textarea");
        if (next && typed !== null) next.value = typed;
        if (next && hadFocus) next.focus();
      } catch {
        // offline: the form stays as it was, to be sent again
      } finally {
        delete form.dataset.sending;
        form.removeAttribute("aria-busy");
        sendButtons();
      }
      // Before forms.js's own listener (on the document, bubbling), which holds a posted form's button until the next page.
    },
    true,
  );
  document.addEventListener("keydown", (event) => {
    const field = event.target;
    if (event.key !== "Enter" || event.shiftKey || event.isComposing || !field.matches?.("textarea[data-enter-sends]")) return;
    event.preventDefault();
    const first = field.parentElement.querySelector("[data-suggestions] button");
    if (first) return first.click();
    const button = field.form?.querySelector("[data-needs-any]");
    if (button && !button.disabled) field.form.requestSubmit(button);
  });
  document.addEventListener("input", (event) => {
    const field = event.target;
    if (field.matches?.("[data-suggest-from]")) suggest(field);
    if (field.matches?.("textarea[data-typing-signal]") && field.value.trim() && Date.now() - lastTyping > TYPING_EVERY_MS) {
      lastTyping = Date.now();
      const signal = new FormData();
      signal.append("intent", "typing");
      fetch(field.form.action, { method: "POST", body: signal, headers: { Accept: "text/html" } }).catch(() => undefined);
    }
    if (field.form?.querySelector("[data-needs-any]")) sendButtons();
  });
  document.addEventListener("change", (event) => {
    const field = event.target;
    if (field.matches?.("input[type=file][data-file-label]")) checkFile(field);
    if (field.matches?.("select[data-inserts-into]")) {
      const chosen = field.selectedOptions[0]?.dataset.body;
      const target = document.getElementById(field.dataset.insertsInto);
      field.value = "";
      if (chosen && target) insert(target, chosen);
    }
    if (field.matches?.("select[data-submits]")) field.form?.requestSubmit();
  });
  sendButtons();
}

const source = document.querySelector("[data-live-events]");
if (source && typeof EventSource !== "undefined") {
  remember(document);
  follow(source);
}
// A thread opens at its newest message.
for (const box of document.querySelectorAll('[data-live-scroll="end"]')) box.scrollTop = box.scrollHeight;
liveSides();
liveSends();
liveForms();
redrawingSelects();
livePosts();
// What was typed before this file ran (a slow network) gets its suggestions now, and the page says
// it is wired (browser tests wait for it before typing).
for (const field of document.querySelectorAll("[data-suggest-from]")) if (field.value) suggest(field);
document.documentElement.dataset.live = "ready";
