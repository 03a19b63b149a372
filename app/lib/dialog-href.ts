/** The URL that opens the `name` dialog on the current page (`?dialog=name`, other parameters kept). */
export function dialogHref(searchParams: URLSearchParams, name: string) {
  const next = new URLSearchParams(searchParams);
  next.set("dialog", name);
  return `?${next.toString()}`;
}

/** The URL of the current page with its dialog closed. */
export function closeDialogHref(searchParams: URLSearchParams) {
  const next = new URLSearchParams(searchParams);
  next.delete("dialog");
  const query = next.toString();
  return query ? `?${query}` : "?";
}
