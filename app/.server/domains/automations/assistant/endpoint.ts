import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { env } from "../../../infrastructure/config/env";
import { sandboxLlmBaseUrl } from "../../../infrastructure/clients/llm";
import { isForbiddenAddress, systemResolver, type Resolver } from "../../webhooks-out/endpoint";
import { ASSISTANT_MESSAGES, BASE_URL_MAX } from "~/lib/schemas/assistant";

/**
 * Where the assistant may send a customer's words (decision 076): an organisation's base URL is
 * called by Jumbe's server, so it is checked as a webhook's is. In production: https and public
 * addresses only, except the sandbox's own URL on a demo host. Elsewhere (a laptop, a local trial):
 * http too, and loopback, so a llama.cpp server or Ollama on the same machine works; private
 * networks stay refused everywhere.
 */

export type EndpointCheck = { ok: true; url: string } | { ok: false; message: string };

const LOOPBACK = [ipaddr.parseCIDR("127.0.0.0/8"), ipaddr.parseCIDR("::1/128")];

function isLoopback(address: string) {
  if (!isIP(address)) return false;
  const parsed = ipaddr.parse(address);
  return LOOPBACK.some(([net, bits]) => net.kind() === parsed.kind() && (parsed as ipaddr.IPv6).match(net as ipaddr.IPv6, bits));
}

/** The sandbox's base URL when the sandbox is on: always allowed. */
export function sandboxBaseUrl(): string | null {
  return env().sandbox ? sandboxLlmBaseUrl(env().APP_URL) : null;
}

const trimmed = (url: string) => url.trim().replace(/\/+$/, "");

export async function checkAssistantEndpoint(raw: string, resolve: Resolver = systemResolver): Promise<EndpointCheck> {
  const value = trimmed(raw);
  if (!value) return { ok: false, message: ASSISTANT_MESSAGES.baseUrlRequired };
  if (value.length > BASE_URL_MAX) return { ok: false, message: ASSISTANT_MESSAGES.baseUrlInvalid };
  const sandbox = sandboxBaseUrl();
  if (sandbox && value === trimmed(sandbox)) return { ok: true, url: value };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, message: ASSISTANT_MESSAGES.baseUrlInvalid };
  }
  if (url.username || url.password || url.search || url.hash) return { ok: false, message: ASSISTANT_MESSAGES.baseUrlInvalid };
  const production = env().production;
  if (url.protocol !== "https:" && (production || url.protocol !== "http:")) return { ok: false, message: ASSISTANT_MESSAGES.baseUrlHttps };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      return { ok: false, message: ASSISTANT_MESSAGES.baseUrlUnresolved };
    }
  }
  const allowed = (address: string) => !isForbiddenAddress(address) || (!production && isLoopback(address));
  if (!addresses.length || !addresses.every(allowed)) return { ok: false, message: ASSISTANT_MESSAGES.baseUrlPrivate };
  return { ok: true, url: value };
}
