import { data } from "react-router";

/**
 * Any other address under /admin: not found, by every method. The layout's guard has already
 * answered anyone but an administrator with the same 404, so the console's addresses say nothing
 * about which exist; the root's error boundary shows the product's Not Found page.
 */
function notFound(): never {
  throw data("Not Found", { status: 404, statusText: "Not Found" });
}

export function loader() {
  return notFound();
}

export function action() {
  return notFound();
}

// A page (not a file), so the root's error boundary renders the Not Found page; the loader always throws.
export default function NoSuchConsolePage() {
  return null;
}
