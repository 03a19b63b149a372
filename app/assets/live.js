// The live parts of a page without React (docs/decisions/067): a campaign's figures as it sends.
//
// An element [data-live-events="<url>"] names a server-sent events stream, and [data-live-on] the
// event that says the page has changed ("message" unless given). On each, the script reads the page
// again (one read at a time, at most one a second) and, for each [data-live-region] of the fresh page,
// replaces the element of the same id if the server drew it differently this time. A region the
// server drew as before is left alone, so what someone is typing or choosing in it stays; one that
// holds the focus waits for the next read. `end` closes the stream for good. A stream the server
// refused (a 503 while the database restarts, a proxy's 502) is reopened after a pause that grows
// to half a minute, the page read first; a dropped connection the browser reopens by itself.
//
// Without JavaScript the page refreshes itself (<noscript><meta http-equiv="refresh">).

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

const source = document.querySelector("[data-live-events]");
if (source && typeof EventSource !== "undefined") {
  remember(document);
  follow(new URL(source.dataset.liveEvents, location.href).href, source.dataset.liveOn || "message");
}
