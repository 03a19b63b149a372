import type { Server } from "node:http";
import express from "express";
import { serveApiV1 } from "~/.server/adapters/api-v1/serve";
import { databaseUnavailableErrors } from "~/.server/infrastructure/http/database-unavailable";
import { finalErrorHandler } from "~/.server/infrastructure/http/error-page";
import * as keyApi from "~/routes/api/developer.api-key";
import { createVerifiedUser, signedInCookie } from "./accounts";
import { getRequest, run } from "./http";
import { keepIdleConnections } from "@jumbe/sandbox/test-server";

/**
 * The real /api/v1 handler on a real loopback socket (a free port), served as the built server
 * serves it (Express's `serveApiV1`, decision 187: the body streamed in, the answer streamed out, the
 * caller's address as Express resolves it), so tests can call it as clients do: with fetch, curl,
 * Node or Python.
 */
export async function startApiV1Server() {
  const app = express();
  app.use(serveApiV1());
  app.use(databaseUnavailableErrors());
  app.use(finalErrorHandler());
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  keepIdleConnections(server);
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  /**
   * One call with an API key, as a client makes it (a body that is not text is sent as JSON): its
   * status, content type, text and the JSON parsed from it.
   */
  const answer = async (key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, type: response.headers.get("content-type"), text, body: text ? JSON.parse(text) : undefined };
  };
  /** The same call's status and JSON body only. */
  const call = async (key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const { status, body: json } = await answer(key, method, path, body, headers);
    return { status, body: json };
  };
  return { base, call, answer, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A new business with its owner signed in and the API key the Developer page shows them. */
export async function tenantWithApiKey(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  const read = await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }));
  return { organizationId: account.organization.id, userId: account.user.id, cookie, key: read.data.key as string };
}
