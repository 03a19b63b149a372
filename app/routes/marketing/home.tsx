import { Link } from "react-router";
import type { Route } from "./+types/home";
import { Logo } from "~/components/ui/logo";
import landingScript from "~/assets/landing.js?url";
import type { PageHandle } from "~/root";

export const handle: PageHandle = { hydrate: false, scripts: [landingScript] };

export const meta: Route.MetaFunction = () => [
  { title: "Jumbe | WhatsApp Business messaging for Africa" },
  { name: "description", content: "Jumbe helps government agencies, banks and businesses across Africa talk to customers on WhatsApp." },
];

// The full landing page arrives with the public-site work; this entry point already leads into the product.
export default function Home() {
  return (
    <div className="flex min-h-screen flex-col">
      <header className="flex items-center justify-between px-6 py-4">
        <Logo />
        <nav className="flex items-center gap-3 text-sm font-semibold">
          <Link to="/login" className="rounded-lg px-3 py-2 text-slate-700 hover:bg-slate-100">Sign in</Link>
          <Link to="/signup" className="rounded-lg bg-brand-600 px-3 py-2 text-white hover:bg-brand-700">Get started</Link>
        </nav>
      </header>
      <main className="flex flex-1 flex-col items-center justify-center px-6 text-center">
        <h1 className="max-w-2xl text-4xl font-bold tracking-tight sm:text-5xl">WhatsApp Business messaging for organisations across Africa</h1>
        <p className="mt-4 max-w-xl text-lg text-slate-600">Campaigns, broadcasts and customer chat on the WhatsApp Business API, in Swahili, French and English.</p>
        <Link to="/signup" className="mt-8 rounded-lg bg-brand-600 px-6 py-3 font-semibold text-white hover:bg-brand-700">Create your account</Link>
      </main>
    </div>
  );
}
