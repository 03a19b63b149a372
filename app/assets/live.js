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
//    Without JavaScript the page refreshes itself (<noscript><meta http-equiv="refresh">).
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
//    copy of the file, before anything is sent.

const MIN_GAP_MS = 1000;
const MAX_PAUSE_MS = 30_000;

/** The server's drawing of each region, by id, as last put on the page. */
const drawn = new Map();

function remember(root) {
  for (const region of root.querySelectorAll("[data-live-region][id]")) drawn.set(region.id, region.outerHTML);
}

function swap(fresh) {
  for (const region of fresh.querySelectorAll("[data-live-region][id]")) {
    const current = document.getElementById(region.id);
    if (!current || drawn.get(region.id) === region.outerHTML) continue;
    const focused = document.activeElement;
    if (focused && focused !== document.body && current.contains(focused)) continue;
    current.replaceWith(document.importNode(region, true));
    drawn.set(region.id, region.outerHTML);
  }
}

function follow(url, eventName) {
  let reading = false;
  let again = false;
  let lastRead = 0;
  let failures = 0;
  let ended = false;
  let stream;

  const read = async () => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    const wait = lastRead + MIN_GAP_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    again = false;
    lastRead = Date.now();
    try {
      const response = await fetch(location.href, { headers: { Accept: "text/html" } });
      // A sign-in page, an error page: the regions stay as they are until a read answers the page.
      if (response.ok && !response.redirected) swap(new DOMParser().parseFromString(await response.text(), "text/html"));
    } catch {
      // offline for a moment: the next event reads again
    }
    reading = false;
    if (again) read();
  };

  const open = () => {
    stream = new EventSource(url);
    stream.addEventListener(eventName, () => {
      failures = 0;
      read();
    });
    stream.addEventListener("end", () => {
      ended = true;
      stream.close();
    });
    stream.addEventListener("error", () => {
      if (stream.readyState !== EventSource.CLOSED || ended) return;
      read();
      setTimeout(open, Math.min(MAX_PAUSE_MS, 2000 * 2 ** failures++));
    });
  };
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

/** A chosen image in place of the preview's header, until another is chosen or the page posts it. */
function showChosenImage(form, chosen) {
  if (!chosen) return;
  for (const holder of form.ownerDocument.querySelectorAll("[data-live-image]")) {
    const image = document.createElement("img");
    image.src = chosen.url;
    image.alt = `Header image: ${chosen.name}`;
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

const source = document.querySelector("[data-live-events]");
if (source && typeof EventSource !== "undefined") {
  remember(document);
  follow(new URL(source.dataset.liveEvents, location.href).href, source.dataset.liveOn || "message");
}
liveForms();
redrawingSelects();
livePosts();
