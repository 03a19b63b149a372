// Being built (issue 16).
export function loader() {
  return new Response("Not yet", { status: 404 });
}
