import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  data,
  isRouteErrorResponse,
  useLoaderData,
  useMatches,
  useNavigation,
  useRouteError,
  useRouteLoaderData,
} from "react-router";
import type { Route } from "./+types/root";
import "./app.css";
import { useNonce } from "~/components/nonce";
import { Toast, type ToastMessage } from "~/components/ui/toast";
import { FullScreenLoader } from "~/components/layout/loaders";
import { CrashScreen, describeError } from "~/components/layout/crash-screen";
import { NotFoundScreen } from "~/components/ui/not-found";
import { takeToast } from "~/.server/infrastructure/http/toast";
import { localeMiddleware } from "~/.server/infrastructure/http/locale";
import { readYourWritesMiddleware } from "~/.server/infrastructure/http/read-your-writes";
import { sessionWrites } from "~/.server/domains/auth/guards";
import { getLocale } from "~/paraglide/runtime";
import { usePreloadModules } from "~/components/preloads";
import { DocumentPageProvider } from "~/components/ui/link";

// Every request is written in its person's language (decision 071): chosen once, here. With a read
// replica, a person's own writes are read back from the primary (decision 163); a request that may
// write leaves no stale session copy behind on any instance (decision 166).
export const middleware: Route.MiddlewareFunction[] = [localeMiddleware, readYourWritesMiddleware, sessionWrites];

export const meta: Route.MetaFunction = ({ error }) => [
  { title: isNotFound(error) ? "Page not found | Jumbe" : "Jumbe | WhatsApp Business messaging for Africa" },
  {
    name: "description",
    content: "Jumbe: WhatsApp Business API messaging, campaigns and customer chat for organisations in Kenya and across Africa.",
  },
];

/** The favicon and the web app manifest, on every page. */
export const links: Route.LinksFunction = () => [
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "manifest", href: "/manifest.webmanifest" },
];

export async function loader({ request }: Route.LoaderArgs) {
  const { toast, headers } = await takeToast(request);
  return data({ toast, locale: getLocale() }, { headers });
}

/**
 * A route whose `handle` says `hydrate: false` is sent as plain server-rendered HTML: no React
 * runtime, only the few small scripts it names in `handle.scripts` (docs/decisions/007).
 */
export interface PageHandle {
  hydrate?: false;
  scripts?: string[];
}

export function Layout({ children }: { children: React.ReactNode }) {
  const nonce = useNonce();
  // A hydrated page's words files, fetched beside its code (decision 072; named by the server's entry).
  usePreloadModules(nonce);
  // An error page without the root's data still says its language.
  const locale = useRouteLoaderData<typeof loader>("root")?.locale ?? getLocale();
  const handles = useMatches().map((match) => (match.handle ?? {}) as PageHandle);
  const hydrate = !handles.some((handle) => handle.hydrate === false);
  const pageScripts = handles.flatMap((handle) => handle.scripts ?? []);
  return (
    <html lang={locale}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#059669" />
        <Meta />
        <Links nonce={nonce} />
      </head>
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        {/* A page without React in the browser links with plain anchors (components/ui/link.tsx). */}
        <DocumentPageProvider value={!hydrate}>{children}</DocumentPageProvider>
        {hydrate ? (
          <>
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
          </>
        ) : (
          pageScripts.map((src) => <script key={src} type="module" src={src} nonce={nonce} />)
        )}
      </body>
    </html>
  );
}

export default function App() {
  const { toast } = useLoaderData<typeof loader>();
  return (
    <>
      <NavigationLoader />
      {toast ? <Toast key={toast.id} toast={toast as ToastMessage} /> : null}
      <Outlet />
    </>
  );
}

// The spec's full-screen loader, shown while a navigation waits on the server.
function NavigationLoader() {
  const navigation = useNavigation();
  return navigation.state === "loading" && !navigation.formMethod ? <FullScreenLoader delayed /> : null;
}

/** A 404 that no page's own boundary took (an address that opens nothing for this person, the admin console to anyone else). */
function isNotFound(error: unknown) {
  return isRouteErrorResponse(error) && error.status === 404;
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isNotFound(error)) return <NotFoundScreen />;
  return <CrashScreen detail={describeError(error)} />;
}
