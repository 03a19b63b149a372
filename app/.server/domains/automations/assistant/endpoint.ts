import { env } from "../../../infrastructure/config/env";
import { SANDBOX_LLM_MODEL, sandboxLlmBaseUrl } from "../../../infrastructure/clients/llm";
import { resolveOutboundTarget, systemResolver, type OutboundRefusal, type Resolver } from "../../../infrastructure/security/outbound-url";
import { ASSISTANT_MESSAGES, BASE_URL_MAX } from "~/lib/schemas/assistant";

/**
 * Where the assistant may send a customer's words (decisions 076 and 099): an organisation's base URL
 * is called by Jumbe's server, so it goes through the one check every address a tenant gives Jumbe
 * goes through (infrastructure/security/outbound-url.ts). In production: https and public addresses
 * only, except the sandbox's own URL on a demo host. Elsewhere (a laptop, a local trial): http too,
 * and loopback, so a llama.cpp server or Ollama on the same machine and the model sandbox work;
 * private networks stay refused everywhere. Saving checks it, and so does every call (answer.ts).
 */

export type EndpointCheck = { ok: true; url: string } | { ok: false; message: string };

/** The sandbox's base URL when the sandbox is on: always allowed. */
export function sandboxBaseUrl(): string | null {
  return env().sandbox ? sandboxLlmBaseUrl(env().APP_URL) : null;
}

const trimmed = (url: string) => url.trim().replace(/\/+$/, "");

/**
 * Whether the assistant's answers come from the model sandbox (sandbox/llm), not a real model: its
 * base URL is the sandbox's inside Jumbe, or the model is the sandbox's own. The page says so.
 */
export function usesSandboxModel(settings: { baseUrl: string; model: string }): boolean {
  const sandbox = sandboxBaseUrl();
  if (sandbox && settings.baseUrl && trimmed(settings.baseUrl) === trimmed(sandbox)) return true;
  return settings.model.trim() === SANDBOX_LLM_MODEL;
}

function endpointMessage(reason: OutboundRefusal) {
  switch (reason) {
    case "empty":
      return ASSISTANT_MESSAGES.baseUrlRequired;
    case "scheme":
      return ASSISTANT_MESSAGES.baseUrlHttps;
    case "unresolved":
      return ASSISTANT_MESSAGES.baseUrlUnresolved;
    case "private":
      return ASSISTANT_MESSAGES.baseUrlPrivate;
    default:
      return ASSISTANT_MESSAGES.baseUrlInvalid;
  }
}

export async function checkAssistantEndpoint(raw: string, resolve: Resolver = systemResolver): Promise<EndpointCheck> {
  const value = trimmed(raw);
  if (!value) return { ok: false, message: ASSISTANT_MESSAGES.baseUrlRequired };
  if (value.length > BASE_URL_MAX) return { ok: false, message: ASSISTANT_MESSAGES.baseUrlInvalid };
  const sandbox = sandboxBaseUrl();
  if (sandbox && value === trimmed(sandbox)) return { ok: true, url: value };
  // A base URL has no query or fragment: the client adds its paths to it.
  if (/[?#]/.test(value)) return { ok: false, message: ASSISTANT_MESSAGES.baseUrlInvalid };
  const target = await resolveOutboundTarget(value, { loopback: !env().production }, resolve);
  return target.ok ? { ok: true, url: value } : { ok: false, message: endpointMessage(target.reason) };
}

/** An endpoint's origin (scheme, host and port), or "" for none or a malformed one. */
export function endpointOrigin(baseUrl: string): string {
  try {
    return baseUrl.trim() ? new URL(baseUrl.trim()).origin : "";
  } catch {
    return "";
  }
}
