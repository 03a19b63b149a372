// Placeholder while the billing pages are built (issue 17).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
export default function Placeholder() {
  return null;
}
