import { useNonce } from "~/components/nonce";

/**
 * Structured data as a JSON-LD block carrying the request's CSP nonce (every script on the page does,
 * tests/e2e/security.spec.ts). `<` is escaped so no value can close the script element.
 */
export function JsonLd({ data }: { data: Record<string, unknown> }) {
  const nonce = useNonce();
  return (
    <script type="application/ld+json" nonce={nonce} dangerouslySetInnerHTML={{ __html: JSON.stringify(data).replace(/</g, "\\u003c") }} />
  );
}
