import pino from "pino";
import { env } from "./config/env";

let logger: pino.Logger | undefined;
let captured: { destination: pino.DestinationStream; level: pino.LevelWithSilent } | undefined;

/** Structured logs; never pass passwords, codes, tokens or whole API keys. */
export function log() {
  if (logger) return logger;
  const config = env();
  const options: pino.LoggerOptions = {
    level: captured?.level ?? (config.NODE_ENV === "test" && !process.env.LOG_LEVEL ? "silent" : config.LOG_LEVEL),
    base: undefined,
    redact: ["password", "*.password", "code", "*.code", "token", "*.token"],
    // Whatever field or message carries a path (the request log, an error's), a callback secret leaves it here.
    hooks: { streamWrite: withoutCallbackSecrets },
  };
  const pretty = config.LOG_FORMAT ? config.LOG_FORMAT === "pretty" : config.NODE_ENV === "development" && process.stdout.isTTY === true;
  if (captured) logger = pino(options, captured.destination);
  else logger = pretty ? pino(options, { write: (line: string) => void process.stdout.write(prettyLine(line)) }) : pino(options);
  return logger;
}

/** Tests: log lines (JSON) go to `destination` at `level` from now on; undefined goes back to the configured output. */
export function captureLogs(destination: pino.DestinationStream | undefined, level: pino.LevelWithSilent = "info") {
  captured = destination ? { destination, level } : undefined;
  logger = undefined;
}

/**
 * The secret segments of the M-Pesa callback addresses, hidden: `/webhooks/mpesa/stk/<payment>/[secret]`,
 * `/webhooks/mpesa/b2c/<payout>/[secret]/result`, `/webhooks/paybill/[secret]/confirmation` and a payment
 * request's shortcode's `/webhooks/pay/[secret]/stk` (decision 137). Anyone who reads a log must not be able to post a
 * callback (decision 035); deploy/nginx/jumbe.conf keeps them out of nginx's access log too.
 */
export function withoutCallbackSecrets(text: string): string {
  if (!/\/webhooks\//i.test(text)) return text;
  return (
    text
      .replace(/(\/webhooks\/mpesa\/stk\/[^/?#\s"\\]+\/)[^/?#\s"\\]+/gi, "$1[secret]")
      .replace(/(\/webhooks\/paybill\/)[^/?#\s"\\]+/gi, "$1[secret]")
      // An organisation's own shortcode (issue 76): its callback token binds a callback to the tenant.
      .replace(/(\/webhooks\/pay\/)[^/?#\s"\\]+/gi, "$1[secret]")
      .replace(/(\/webhooks\/mpesa\/b2c\/[^/?#\s"\\]+\/)[^/?#\s"\\]+/gi, "$1[secret]")
  );
}

const LEVELS: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO ", 40: "WARN ", 50: "ERROR", 60: "FATAL" };
const COLOURS: Record<number, string> = { 40: "\x1b[33m", 50: "\x1b[31m", 60: "\x1b[31m" };

/**
 * One JSON log line as a short readable one for development:
 * `14:02:11 INFO  GET /dashboard 200 12.3 ms db=4` for a request, `job whatsapp.refresh-phone #12 done 40 ms`
 * for a job, else the message and its fields as key=value. Errors keep their stack.
 */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const { level, time, msg, err, ...fields } = entry as {
    level: number;
    time: number;
    msg?: string;
    err?: { stack?: string; message?: string };
  } & Record<string, unknown>;
  const clock = new Date(time).toISOString().slice(11, 19);
  let text: string;
  if (msg === "request") {
    const { method, path, status, ms, db, ...rest } = fields;
    text = `${method} ${path} ${status} ${ms} ms${db !== undefined ? ` db=${db}` : ""}${keyValues(rest, ["ip"])}`;
  } else if (msg === "job") {
    const { queue, jobId, outcome, ms, attempt, ...rest } = fields;
    text = `job ${queue} #${jobId} ${outcome} ${ms} ms${Number(attempt) > 1 ? ` attempt ${attempt}` : ""}${keyValues(rest, ["batch"])}`;
  } else {
    text = `${msg ?? ""}${keyValues(fields)}`;
  }
  const colour = COLOURS[level] ?? "";
  const stack = err ? `\n${err.stack ?? err.message ?? JSON.stringify(err)}` : "";
  return `${clock} ${colour}${LEVELS[level] ?? level}${colour ? "\x1b[0m" : ""} ${text}${stack}\n`;
}

function keyValues(fields: Record<string, unknown>, skip: string[] = []) {
  const parts = Object.entries(fields)
    .filter(([key, value]) => !skip.includes(key) && value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === "object" ? JSON.stringify(value) : String(value)}`);
  return parts.length ? ` ${parts.join(" ")}` : "";
}
