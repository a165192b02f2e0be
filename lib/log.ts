/**
 * The server's log: one JSON line per event on stdout —
 * `{"level":"info","time":"2026-12-07T09:51:55.123Z","msg":"…","requestId":"…","tenantId":"…","runId":"…",…fields}` —
 * or, with KINDGI_LOG_FORMAT=pretty, one line for people at a terminal: `09:51:55.123 INFO  msg key=value …`.
 * KINDGI_LOG_LEVEL (debug, info, warn, error; default info) drops the events below it.
 *
 * The request id, tenant id and run id come from the log context ({@link withLogContext}: the API's route wrapper
 * sets the request id and, once the caller is known, the tenant id; the kernel worker the run id and tenant id of the
 * run it executes); a field not known is left out.
 *
 * Never a secret: a field whose name says it holds one (authorization, apiKey, key, token, secret, password, cookie,
 * …), at any depth, is written as "[redacted]", and anything shaped like a bearer token, a Kindgi API key (`kgi_…`) or
 * a provider key (`sk-…`) in a message or a string value is too. Callers still must not put a secret's value in a
 * message: the patterns are a net, not the rule.
 *
 * No library: the lines are written synchronously with `process.stdout.write` (synchronous for files and pipes on
 * Linux), so a line is out before a crash and nothing runs in a worker thread the server's bundles would have to carry.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;
/** What the log context can know: each line carries those known. */
export type LogContext = { requestId?: string; tenantId?: string; runId?: string };

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const CONTEXT_KEYS = ["requestId", "tenantId", "runId"] as const;
const RESERVED = new Set(["level", "time", "msg"]);
const REDACTED = "[redacted]";

type State = { context: AsyncLocalStorage<LogContext>; write: (line: string) => void };
// One context for every copy of this module the server's bundles hold (instrumentation and route handlers).
const state: State = ((globalThis as { [key: symbol]: State | undefined })[Symbol.for("kindgi.log")] ??= {
  context: new AsyncLocalStorage<LogContext>(),
  write: (line) => void process.stdout.write(line),
});

/** Runs `fn` with `fields` added to the log context (the context around it is not changed). */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  const next: LogContext = { ...state.context.getStore() };
  for (const key of CONTEXT_KEYS) if (fields[key] !== undefined) next[key] = fields[key];
  return state.context.run(next, fn);
}

/**
 * Adds `fields` to the log context of the {@link withLogContext} call this runs under (a request's tenant id once its
 * caller is authenticated): every line logged under it from now on carries them. Nothing outside any context.
 */
export function addLogContext(fields: LogContext): void {
  const current = state.context.getStore();
  if (!current) return;
  for (const key of CONTEXT_KEYS) if (fields[key] !== undefined) current[key] = fields[key];
}

/** The log context here (a copy). */
export function logContext(): LogContext {
  return { ...state.context.getStore() };
}

/** Whether a field of this name holds a secret: its value is never written. */
export function isSecretFieldName(name: string): boolean {
  return (SECRET_NAME.test(name) && !TOKEN_COUNT.test(name)) || name.toLowerCase() === "key";
}
/** Counts of model tokens (`inputTokens`, `max_tokens`) are not secrets. */
const TOKEN_COUNT = /^(input|output|total|prompt|completion|max|cached|reasoning)[-_]?tokens$/i;
const SECRET_NAME = /authorization|api[-_]?key|private[-_]?key|secret|token|passw(or)?d|passphrase|cookie|credential|session[-_]?key/i;

/** `text` without anything shaped like a bearer token, a Kindgi API key, a provider key or a URL's password. */
export function scrubSecrets(text: string): string {
  return text
    .replace(/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g, `Bearer ${REDACTED}`)
    .replace(/\bkgi_[A-Za-z0-9]+/g, REDACTED)
    .replace(/\bsk-[A-Za-z0-9*_.-]{8,}/g, REDACTED)
    .replace(/(\/\/[^\s:/@]+:)[^\s@/]+@/g, `$1${REDACTED}@`);
}

function threshold(): number {
  const configured = process.env.KINDGI_LOG_LEVEL?.trim().toLowerCase();
  return configured && configured in LEVELS ? LEVELS[configured as LogLevel] : LEVELS.info;
}

function pretty(): boolean {
  return process.env.KINDGI_LOG_FORMAT?.trim().toLowerCase() === "pretty";
}

/** An error as a log field: name, message, code when it has one, and the stack when `withStack` (level error). */
function errorField(error: Error, withStack: boolean, depth: number): Record<string, unknown> {
  const field: Record<string, unknown> = { name: error.name, message: scrubSecrets(error.message) };
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" || typeof code === "number") field.code = code;
  if (withStack && error.stack) field.stack = scrubSecrets(error.stack);
  if (error.cause !== undefined && depth < 3) field.cause = error.cause instanceof Error ? errorField(error.cause, false, depth + 1) : clean(error.cause, false, depth + 1, new WeakSet());
  return field;
}

/** A value as it is written: secrets' fields redacted, errors as {@link errorField}, no cycles, bigints as strings. */
function clean(value: unknown, withStack: boolean, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === "string") return scrubSecrets(value);
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "function" || typeof value === "symbol") return undefined;
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Error) return errorField(value, withStack, depth);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (seen.has(value)) return "[circular]";
  if (depth > 8) return "[too deep]";
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => clean(item, withStack, depth + 1, seen) ?? null);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (isSecretFieldName(key)) out[key] = REDACTED;
      else {
        const cleaned = clean(item, withStack, depth + 1, seen);
        if (cleaned !== undefined) out[key] = cleaned;
      }
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/** The event as the JSON line's object: level, time, msg, the context's ids, then the fields. */
export function logRecord(level: LogLevel, message: string, fields: LogFields | undefined, now = new Date()): Record<string, unknown> {
  const record: Record<string, unknown> = { level, time: now.toISOString(), msg: scrubSecrets(message) };
  const context = state.context.getStore();
  if (context) for (const key of CONTEXT_KEYS) if (context[key] !== undefined) record[key] = context[key];
  if (fields) {
    const seen = new WeakSet<object>();
    for (const [key, value] of Object.entries(fields)) {
      if (RESERVED.has(key)) continue;
      if (isSecretFieldName(key)) {
        record[key] = REDACTED;
        continue;
      }
      const cleaned = clean(value, level === "error", 1, seen);
      if (cleaned !== undefined) record[key] = cleaned;
    }
  }
  return record;
}

/** One line for a person: `HH:MM:SS.mmm LEVEL msg key=value …` (local time), and an error's stack indented below. */
export function prettyLine(record: Record<string, unknown>): string {
  const time = new Date(String(record.time));
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const clock = `${pad(time.getHours())}:${pad(time.getMinutes())}:${pad(time.getSeconds())}.${pad(time.getMilliseconds(), 3)}`;
  const parts = [clock, String(record.level).toUpperCase().padEnd(5), String(record.msg)];
  const stacks: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (RESERVED.has(key)) continue;
    if (value && typeof value === "object" && "message" in value && "name" in value) {
      const { stack, ...rest } = value as Record<string, unknown>;
      if (typeof stack === "string") stacks.push(stack);
      parts.push(`${key}=${prettyValue(`${rest.name}: ${rest.message}`)}${rest.code !== undefined ? ` ${key}.code=${prettyValue(rest.code)}` : ""}`);
      continue;
    }
    parts.push(`${key}=${prettyValue(value)}`);
  }
  const line = parts.join(" ");
  return stacks.length ? `${line}\n${stacks.map((stack) => stack.replace(/^/gm, "    ")).join("\n")}` : line;
}

function prettyValue(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

function emit(level: LogLevel, message: string, fields?: LogFields): void {
  if (LEVELS[level] < threshold()) return;
  try {
    const record = logRecord(level, message, fields);
    state.write(`${pretty() ? prettyLine(record) : JSON.stringify(record)}\n`);
  } catch {
    // A log line that cannot be written never fails what logged it.
  }
}

/** The server's logger: `log.info("message", { field: value })`; an error goes in a field (`{ err: error }`). */
export const log = {
  debug: (message: string, fields?: LogFields) => emit("debug", message, fields),
  info: (message: string, fields?: LogFields) => emit("info", message, fields),
  warn: (message: string, fields?: LogFields) => emit("warn", message, fields),
  error: (message: string, fields?: LogFields) => emit("error", message, fields),
};
