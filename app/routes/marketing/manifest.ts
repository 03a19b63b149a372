export async function loader() {
  return Response.json({ name: "Jumbe" }, { headers: { "Content-Type": "application/manifest+json" } });
}
