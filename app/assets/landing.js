// The landing page's behaviours, on server-rendered HTML without React (docs/decisions/007).
// Everything here is an enhancement: without it the page is complete (details/summary FAQ,
// scrollable logo strip, scripted demo chats, plain links).

const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");
const behavior = () => (reducedMotion.matches ? "auto" : "smooth");
document.documentElement.dataset.enhanced = "true";

// Demo chats: a typed message is appended as sent with the current time (HH:MM, visitor's locale);
// blank or whitespace-only input is ignored.
const sentTemplate = document.getElementById("demo-chat-sent");
const timeFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
for (const form of document.querySelectorAll("[data-demo-chat-form]")) {
  for (const control of form.elements) control.disabled = false;
}
document.addEventListener("submit", (event) => {
  const form = event.target instanceof Element ? event.target.closest("[data-demo-chat-form]") : null;
  if (!form || !sentTemplate) return;
  event.preventDefault();
  const input = form.elements.namedItem("message");
  const text = input.value.trim();
  if (!text) return;
  const bubble = sentTemplate.content.firstElementChild.cloneNode(true);
  const now = new Date();
  bubble.querySelector("[data-text]").textContent = text;
  const time = bubble.querySelector("[data-time]");
  time.textContent = timeFormat.format(now);
  time.dateTime = now.toISOString();
  const log = form.closest("[data-demo-chat]").querySelector("[data-demo-chat-log]");
  log.append(bubble);
  log.scrollTop = log.scrollHeight;
  input.value = "";
});

// Client-logo carousel: every 3 s scroll by half the visible width; past the end, back to the start.
// Paused on hover and focus, and for visitors who prefer reduced motion.
for (const track of document.querySelectorAll("[data-carousel]")) {
  let hovered = false;
  let focused = false;
  track.addEventListener("mouseenter", () => (hovered = true));
  track.addEventListener("mouseleave", () => (hovered = false));
  track.addEventListener("focusin", () => (focused = true));
  track.addEventListener("focusout", (event) => (focused = track.contains(event.relatedTarget)));
  setInterval(() => {
    if (hovered || focused || reducedMotion.matches || document.hidden) return;
    const end = track.scrollWidth - track.clientWidth;
    if (end <= 0) return;
    if (track.scrollLeft >= end - 1) track.scrollTo({ left: 0, behavior: behavior() });
    else track.scrollBy({ left: track.clientWidth / 2, behavior: behavior() });
  }, 3000);
}

// FAQ: one item open at a time (browsers without <details name> support).
document.addEventListener(
  "toggle",
  (event) => {
    const item = event.target;
    if (!(item instanceof HTMLDetailsElement) || !item.open || !item.hasAttribute("data-faq")) return;
    for (const other of document.querySelectorAll("details[data-faq][open]")) if (other !== item) other.open = false;
  },
  true,
);

// The mobile menu closes once a section is chosen.
document.addEventListener("click", (event) => {
  const link = event.target instanceof Element ? event.target.closest("[data-mobile-menu] a") : null;
  if (link) link.closest("details").open = false;
});

// Navbar compact past 10 px, back-to-top visible past 500 px: one passive listener, one frame.
const navbar = document.querySelector("[data-navbar]");
const backToTop = document.querySelector("[data-back-to-top]");
let pending = false;
const update = () => {
  pending = false;
  const y = window.scrollY;
  if (navbar) navbar.dataset.compact = String(y > 10);
  if (backToTop) backToTop.dataset.visible = String(y > 500);
};
addEventListener(
  "scroll",
  () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(update);
  },
  { passive: true },
);
update();

backToTop?.addEventListener("click", (event) => {
  event.preventDefault();
  window.scrollTo({ top: 0, behavior: behavior() });
  document.querySelector("[data-navbar] a")?.focus({ preventScroll: true });
});
