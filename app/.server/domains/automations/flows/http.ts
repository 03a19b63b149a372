import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { resolveWebhookTarget, systemResolver, type Resolver } from "../../webhooks-out";
import type { HttpCall } from "./engine";
import { substitute, substituteJson } from "./values";

/**
 * A flow's HTTP step: GET or POST to the address the member gave, checked as webhooks out are (https
 * in production, no private, loopback or link-local address, the checked address pinned so a name
 * cannot be rebound), 5 seconds in all, the answer's JSON kept when it is at most 16 KB. A failure is
 * status 0 (or the answer's status) and no JSON: later steps can branch on `{{http_status}}`.
 */

export const FLOW_HTTP_TIMEOUT_MS = 5000;
export const FLOW_HTTP_MAX_BYTES = 16 * 1024;

export async function callHttp(
  method: "GET" | "POST",
  rawUrl: string,
  body: string | null,
  resolve: Resolver = systemResolver,
): Promise<{ status: number; json: unknown }> {
  const target = await resolveWebhookTarget(rawUrl, resolve);
  if (!target.ok) return { status: 0, json: null };
  const url = new URL(target.url);
  const address = target.addresses[0]!;
  const family = isIP(address);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolveCall) => {
    let settled = false;
    const chunks: Buffer[] = [];
    let size = 0;
    let status = 0;
    const finish = (json: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolveCall({ status, json });
    };
    const headers: Record<string, string> = { accept: "application/json", "user-agent": "Jumbe-Flows/1" };
    if (body !== null) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    const request = client.request(
      url,
      { method, headers, lookup: pinned, agent: false, ...(url.protocol === "https:" && !isIP(host) ? { servername: host } : {}) },
      (response) => {
        status = response.statusCode ?? 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > FLOW_HTTP_MAX_BYTES) return finish(null);
          chunks.push(chunk);
        });
        response.on("end", () => {
          try {
            finish(status >= 200 && status < 300 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null);
          } catch {
            finish(null);
          }
        });
        response.on("error", () => finish(null));
      },
    );
    const timer = setTimeout(() => finish(null), FLOW_HTTP_TIMEOUT_MS);
    request.on("error", () => finish(null));
    request.end(body ?? undefined);
  });
}

/** The engine's HTTP call: the step's URL and body with the session's variables in them. */
export const flowHttp: HttpCall = (step, vars, contact) =>
  callHttp(
    step.method,
    substitute(step.url, vars, contact, encodeURIComponent),
    step.method === "POST" ? substituteJson(step.body || "{}", vars, contact) : null,
  );
