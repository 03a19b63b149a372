import pino from "pino";
import { env } from "./config/env";

let logger: pino.Logger | undefined;

/** Structured logs; never pass passwords, codes, tokens or whole API keys. */
export function log() {
  logger ??= pino({
    level: env().NODE_ENV === "test" && !process.env.LOG_LEVEL ? "silent" : env().LOG_LEVEL,
    base: undefined,
    redact: ["password", "*.password", "code", "*.code", "token", "*.token"],
  });
  return logger;
}
