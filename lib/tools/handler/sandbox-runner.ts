/**
 * The code that runs inside a sandboxed child process (`context-isolated`, `strict`): it imports the
 * handler once, then runs one call at a time, its context members forwarded to the server as messages. Passed as
 * source text (`eval` / `-e`), so that no separate file has to be bundled or be readable by the sandbox.
 *
 * Messages: server → sandbox `{t:"call", id, input, ctx}`, `{t:"reply", rid, ok, value | error}`, `{t:"abort", id}`;
 * sandbox → server `{t:"ready"}`, `{t:"load-failed", message}`, `{t:"result", id, ok, output | error}`,
 * `{t:"log", id, level, message}`, `{t:"progress", id, progress, total?, message?}`, `{t:"secret", rid, id, name}`, `{t:"fetch", rid, id, url, method, headers, body}`,
 * `{t:"memory", rid, id, type, query?, limit?}` (a `memory:<type>` slot's search).
 */
const RUNNER_BODY = String.raw`
const modulePath = MODULE_PATH;
let handler;
let nextRid = 0;
const pending = new Map();
const controllers = new Map();
function request(message) {
  return new Promise((resolve, reject) => {
    const rid = ++nextRid;
    pending.set(rid, { resolve, reject });
    send({ ...message, rid });
  });
}
function fmt(message, fields) {
  let text = typeof message === "string" ? message : (() => { try { return JSON.stringify(message); } catch { return String(message); } })();
  if (fields !== undefined) { try { text += " " + JSON.stringify(fields); } catch { text += " [unserializable fields]"; } }
  return text;
}
function errorOf(error) {
  const message = error && typeof error.message === "string" ? error.message : String(error);
  const code = error && typeof error.code === "string" ? error.code : undefined;
  return code ? { message, code } : { message };
}
function makeContext(id, data, signal) {
  const log = (message, fields) => send({ t: "log", id, level: "info", message: fmt(message, fields) });
  for (const level of ["debug", "info", "warn", "error"]) log[level] = (message, fields) => send({ t: "log", id, level, message: fmt(message, fields) });
  return Object.freeze({
    idempotencyKey: data.idempotencyKey,
    signal,
    env: Object.freeze({ ...data.env }),
    config: Object.freeze({ ...data.config }),
    resolveSecret: (name) => request({ t: "secret", id, name: String(name) }),
    fetch: async (url, init = {}) => {
      const headers = {};
      new Headers(init.headers ?? {}).forEach((value, key) => { headers[key] = value; });
      const body = init.body === undefined || init.body === null ? undefined : String(init.body);
      const answer = await request({ t: "fetch", id, url: String(url), method: init.method ?? "GET", headers, body });
      const empty = answer.status === 204 || answer.status === 304 || answer.status < 200;
      return new Response(empty ? null : answer.body, { status: answer.status, headers: answer.headers });
    },
    log,
    progress: (progress, total, message) => send({ t: "progress", id, progress, total, message }),
    connections: Object.freeze(Object.fromEntries(Object.entries(data.connections ?? {}).map(([name, connection]) => [name, Object.freeze({ ...connection, permissions: Object.freeze([...connection.permissions]) })]))),
    needs: Object.freeze(Object.fromEntries([
      ...Object.entries(data.needs.ids).map(([name, value]) => [name, Object.freeze({ ...value })]),
      ...Object.entries(data.needs.memory).map(([name, type]) => [name, Object.freeze({
        search: (query, options) => request({ t: "memory", id, type, query: typeof query === "string" ? query : undefined, limit: options && typeof options.limit === "number" ? options.limit : undefined }),
      })]),
    ])),
    pause: (options) => {
      if (!data.pause) throw Object.assign(new Error("this tool cannot pause: only a pack handler tool with pauses: true can"), { code: "pause-unavailable" });
      const ms = options && typeof options.timeoutMs === "number" && Number.isFinite(options.timeoutMs) && options.timeoutMs > 0 ? Math.min(options.timeoutMs, 24 * 24 * 3600 * 1000) : null;
      return { "kindgi:pause": data.pause.waitId, waitId: data.pause.waitId, token: data.pause.token, url: data.pause.url, expiresAt: ms === null ? data.pause.expiresAt : new Date(Date.now() + ms).toISOString() };
    },
  });
}
async function onMessage(message) {
  if (message.t === "reply") {
    const waiter = pending.get(message.rid);
    if (!waiter) return;
    pending.delete(message.rid);
    if (message.ok) waiter.resolve(message.value);
    else waiter.reject(Object.assign(new Error(message.error.message), message.error.code ? { code: message.error.code } : {}));
    return;
  }
  if (message.t === "abort") { controllers.get(message.id)?.abort(); return; }
  if (message.t !== "call") return;
  const controller = new AbortController();
  controllers.set(message.id, controller);
  try {
    const output = await handler(message.input, makeContext(message.id, message.ctx, controller.signal));
    send({ t: "result", id: message.id, ok: true, output: output === undefined ? null : output });
  } catch (error) {
    send({ t: "result", id: message.id, ok: false, error: errorOf(error) });
  } finally {
    controllers.delete(message.id);
  }
}
try {
  const loaded = await import(modulePath);
  handler = loaded.default;
  if (typeof handler !== "function") throw new Error("the module has no default export function (export default async function (input, context) { … })");
} catch (error) {
  send({ t: "load-failed", message: errorOf(error).message });
  throw error;
}
listen((message) => { onMessage(message).catch((error) => send({ t: "result", id: message.id, ok: false, error: errorOf(error) })); });
send({ t: "ready" });
`;

/** The child process's source (`--input-type=module -e`), talking over the IPC channel. */
export function childSource(moduleUrl: string): string {
  return (
    `const send = (message) => process.send(message);\n` +
    `const listen = (fn) => process.on("message", fn);\n` +
    `process.on("disconnect", () => process.exit(0));\n` +
    RUNNER_BODY.replace("MODULE_PATH", JSON.stringify(moduleUrl))
  );
}
