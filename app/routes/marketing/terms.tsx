import type { PageHandle } from "~/root";

// Placeholder until the legal text lands (issue 3).
export const handle: PageHandle = { hydrate: false };

export default function Page() {
  return <main className="p-6">Coming with the public-site work.</main>;
}
