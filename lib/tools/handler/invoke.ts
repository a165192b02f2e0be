/**
 * Runs a pack handler (a `filesystem` module, or an `oci` bundle's module unpacked by lib/tools/oci): the module's default export, called with the
 * input and a {@link HandlerContext}, at the tool's `sandbox` level:
 * - `none`: in the server's own process and thread (no isolation, no limits);
 * - `context-isolated`: in a child process under bubblewrap (lib/tools/sandbox/bwrap.ts): no network of its own (the
 *   tool's `network` policy, applied by its egress proxy, binds its `fetch`, `net` and `tls` connections too), an
 *   empty environment, a read-only view of `/usr` and the handler's folder, its own `/tmp`; `limits.memMB` is its
 *   `--max-old-space-size`, `limits.cpuMs` its CPU time (user + system, from /proc);
 * - `strict`: the same, and Node's permission model inside (reads only the handler's folder, writes only its own
 *   scratch folder, no child processes, no workers, no native addons).
 * Where bubblewrap cannot make a sandbox, calls at these two levels fail with `sandbox-unavailable`.
 * A sandbox runs one call at a time and is kept warm for the next; one that exceeded a limit, crashed or was
 * cancelled is stopped and replaced. Never throws: a failure is a result with a reason (HandlerFailureReason).
 * Every value `resolveSecret` returned is redacted from logs, the result and error messages. The `needs` slots and the
 * `envName` secrets are resolved before the handler is loaded: a required one that cannot be is `need-unavailable`
 * and nothing of the handler runs.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import { pauseOf, progressOf, type HandlerConnection, type HandlerContext, type HandlerFailureReason, type HandlerLogLine, type HandlerProgress, type PauseData } from "@/lib/tools/handler/context";
import { memoryQuery, needsOf, resolveNeeds, type HandlerFact, type NeedsData, type NeedsSource } from "@/lib/tools/handler/needs";
import { policyFetch, type FetchRequest } from "@/lib/tools/handler/policy-fetch";
import { childSource } from "@/lib/tools/handler/sandbox-runner";
import { prepareSandbox, sandboxAvailability, sandboxCpuMs } from "@/lib/tools/sandbox/bwrap";
import { PREAMBLE_FILE, SANDBOX_EGRESS_DIR } from "@/lib/tools/sandbox/egress-preamble";
import type { EgressProxy } from "@/lib/tools/sandbox/egress-proxy";

export type HandlerInvokeContext = {
  idempotencyKey: string;
  signal: AbortSignal;
  /** The stored secret of this name (the tenant's). */
  resolveSecret(name: string): Promise<string>;
  /** Receives each log line, already redacted. */
  log(line: HandlerLogLine): void;
  /** Receives each progress update (its message redacted). */
  progress?(update: HandlerProgress): void;
  /** The tool's `needsSpec.connections`, resolved for this call (their access tokens are redacted like secrets). */
  connections?: Readonly<Record<string, HandlerConnection>>;
  /** A pausing call's wait (tools with `pauses: true`): what `context.pause()` returns. */
  pause?: PauseData;
  /** An `oci` handler's unpacked bundle (read-only) and the absolute path of its module in it. */
  artifact?: { root: string; modulePath: string };
  /** What the run offers for the tool's `needs` slots; without it, only optional slots can be declared. */
  needs?: NeedsSource;
};

export type HandlerInvokeResult =
  | { ok: true; output: unknown; paused?: { waitId: string; expiresAt: string } }
  | { ok: false; error: { kind: "tool-error"; reason: HandlerFailureReason; message: string } };

type Failure = { ok: false; error: { kind: "tool-error"; reason: HandlerFailureReason; message: string } };

const fail = (reason: HandlerFailureReason, message: string): Failure => ({ ok: false, error: { kind: "tool-error", reason, message } });

/** How long a cancelled call may take to stop on its own before its sandbox is stopped. */
const ABORT_GRACE_MS = 250;
/** How often a running call's CPU time is measured. */
const CPU_POLL_MS = 10;
/** Warm sandboxes kept per handler, sandbox level and limits. */
const MAX_IDLE = 2;
const STDERR_TAIL = 4096;
const REDACTED = "[redacted]";

export async function invokeHandlerTool(manifest: ToolManifest, input: unknown, context: HandlerInvokeContext): Promise<HandlerInvokeResult> {
  const ref = manifest.codeArtifactRef;
  if (!ref) return fail("handler-load-failed", `tool ${manifest.id}@${manifest.version} has no codeArtifactRef`);
  const modulePath = ref.kind === "filesystem" ? ref.modulePath : context.artifact?.modulePath;
  if (!modulePath) return fail("handler-load-failed", `the artifact ${ref.kind === "oci" ? ref.imageRef : ""} of tool ${manifest.id}@${manifest.version} was not prepared`);
  const needs = resolveNeeds(manifest.needs, context.needs);
  if (!needs.ok) {
    const names = needs.unavailable.map((name) => JSON.stringify(name)).join(", ");
    return fail("need-unavailable", `the tool requires the needs slot${needs.unavailable.length > 1 ? "s" : ""} ${names}, which this run cannot provide; the handler did not run`);
  }
  const connections = context.connections ?? {};
  const secrets: string[] = Object.values(connections).map((connection) => connection.accessToken).filter(Boolean);
  const redact = (text: string) => redactText(text, secrets);
  const host: CallHost = {
    declaredSecrets: manifest.needsSpec?.secrets ?? {},
    policy: manifest.network,
    context,
    secrets,
    redact,
  };
  const env = await envWithSecrets(manifest, host);
  if (!env.ok) return env;
  const data: CallData = { idempotencyKey: context.idempotencyKey, env: env.value, config: configOf(manifest), connections, needs: needs.data, pause: manifest.pauses === true ? (context.pause ?? null) : null };
  if (context.signal.aborted) return fail("handler-cancelled", "the call was cancelled before the handler started");
  const sandbox = manifest.sandbox ?? "none";
  const result = sandbox === "none" ? await runInProcess(modulePath, input, data, host) : await runInSandbox(sandbox, manifest, modulePath, context.artifact?.root ?? dirname(modulePath), input, data, host);
  if (result.ok) {
    const paused = pausedBy(result.output, data.pause);
    return paused ? { ok: true, output: null, paused } : { ok: true, output: redactDeep(result.output, secrets) };
  }
  return { ok: false, error: { ...result.error, message: redact(result.error.message) } };
}

// ---- what every level shares ----

function freezeConnections(connections: Readonly<Record<string, HandlerConnection>>): Readonly<Record<string, HandlerConnection>> {
  return Object.freeze(Object.fromEntries(Object.entries(connections).map(([name, connection]) => [name, Object.freeze({ ...connection, permissions: Object.freeze([...connection.permissions]) as unknown as string[] })])));
}

type CallData = { idempotencyKey: string; env: Record<string, string>; config: Record<string, unknown>; connections: Readonly<Record<string, HandlerConnection>>; needs: NeedsData; pause: PauseData | null };

/** The handler answered with its pause (the value `context.pause()` returned for this call). */
function pausedBy(output: unknown, pause: PauseData | null): { waitId: string; expiresAt: string } | null {
  if (!pause || typeof output !== "object" || output === null) return null;
  const value = output as Record<string, unknown>;
  if (value["kindgi:pause"] !== pause.waitId) return null;
  const expiresAt = typeof value.expiresAt === "string" && !Number.isNaN(Date.parse(value.expiresAt)) ? value.expiresAt : pause.expiresAt;
  return { waitId: pause.waitId, expiresAt };
}

type CallHost = {
  declaredSecrets: Record<string, Record<string, unknown>>;
  policy: ToolManifest["network"];
  context: HandlerInvokeContext;
  secrets: string[];
  redact(text: string): string;
};

function envOf(manifest: ToolManifest): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, entry] of Object.entries(manifest.needsSpec?.env ?? {})) {
    const value = entry.value ?? entry.default;
    if (value !== undefined && value !== null) env[name] = typeof value === "string" ? value : JSON.stringify(value);
  }
  return env;
}

/** `needsSpec.env`, plus each `needsSpec.secrets` entry with an `envName` resolved under that name (redacted from then on). */
async function envWithSecrets(manifest: ToolManifest, host: CallHost): Promise<{ ok: true; value: Record<string, string> } | Failure> {
  const env = envOf(manifest);
  for (const [name, entry] of Object.entries(host.declaredSecrets)) {
    if (typeof entry.envName !== "string" || entry.envName === "") continue;
    try {
      env[entry.envName] = await resolveDeclaredSecret(host, name);
    } catch (error) {
      return fail("need-unavailable", host.redact(`secret "${name}" (context.env.${entry.envName}) could not be resolved: ${errorOf(error).message}; the handler did not run`));
    }
  }
  return { ok: true, value: env };
}

function configOf(manifest: ToolManifest): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(manifest.needsSpec?.config ?? {})) {
    const value = entry.value ?? entry.default;
    if (value !== undefined) config[name] = value;
  }
  return config;
}

async function resolveDeclaredSecret(host: CallHost, name: string): Promise<string> {
  const entry = Object.hasOwn(host.declaredSecrets, name) ? host.declaredSecrets[name] : undefined;
  if (!entry) throw Object.assign(new Error(`secret "${name}" is not declared in the tool's needsSpec.secrets`), { code: "secret-not-declared" });
  const stored = typeof entry.name === "string" && entry.name ? entry.name : name;
  const value = await host.context.resolveSecret(stored);
  if (value && !host.secrets.includes(value)) host.secrets.push(value);
  return value;
}

/** A memory slot's read: only of a fact type the call's slots name. */
async function readDeclaredFacts(host: CallHost, needs: NeedsData, type: string, query: { text?: string; limit?: number }): Promise<HandlerFact[]> {
  const source = host.context.needs;
  if (!source || !Object.values(needs.memory).includes(type)) throw Object.assign(new Error(`memory:${type} is not a needs slot of this call`), { code: "need-unavailable" });
  return source.readFacts(type, query);
}

function writeLog(host: CallHost, level: string, message: string): void {
  const known = level === "debug" || level === "warn" || level === "error" ? level : "info";
  host.context.log({ level: known, message: host.redact(String(message)).slice(0, 8192), at: new Date().toISOString() });
}

function writeProgress(host: CallHost, progress: unknown, total?: unknown, message?: unknown): void {
  const update = progressOf(progress, total, message);
  if (!update || !host.context.progress) return;
  host.context.progress(update.message === undefined ? update : { ...update, message: host.redact(update.message) });
}

function redactText(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) if (secret) redacted = redacted.split(secret).join(REDACTED);
  return redacted;
}

function redactDeep(value: unknown, secrets: readonly string[]): unknown {
  if (!secrets.length) return value;
  if (typeof value === "string") return redactText(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, secrets));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [redactText(key, secrets), redactDeep(item, secrets)]));
  return value;
}

/** A failure the handler threw, by its `code`. */
function thrownFailure(error: { message: string; code?: string }): Failure {
  const reason: HandlerFailureReason =
    error.code === "ERR_ACCESS_DENIED"
      ? "handler-permission-denied"
      : error.code === "network-denied" || error.code === "host-unresolvable"
        ? error.code
        : "handler-error";
  const prefix = reason === "handler-permission-denied" ? "the sandbox refused an operation the handler tried" : "the handler failed";
  return fail(reason, `${prefix}: ${error.message}`);
}

function errorOf(error: unknown): { message: string; code?: string } {
  const message = error instanceof Error ? error.message : String(error);
  const code = error && typeof error === "object" && typeof (error as { code?: unknown }).code === "string" ? (error as { code: string }).code : undefined;
  return code ? { message, code } : { message };
}

// ---- none: in process ----

const modules = new Map<string, Promise<(input: unknown, context: HandlerContext) => unknown>>();

function loadInProcess(modulePath: string) {
  let loaded = modules.get(modulePath);
  if (!loaded) {
    loaded = import(/* webpackIgnore: true */ /* turbopackIgnore: true */ pathToFileURL(modulePath).href).then((module: { default?: unknown }) => {
      if (typeof module.default !== "function") throw new Error("the module has no default export function (export default async function (input, context) { … })");
      return module.default as (input: unknown, context: HandlerContext) => unknown;
    });
    loaded.catch(() => modules.delete(modulePath));
    modules.set(modulePath, loaded);
  }
  return loaded;
}

async function runInProcess(modulePath: string, input: unknown, data: CallData, host: CallHost): Promise<HandlerInvokeResult> {
  let handler: (input: unknown, context: HandlerContext) => unknown;
  try {
    handler = await loadInProcess(modulePath);
  } catch (error) {
    return fail("handler-load-failed", `the handler module could not be loaded: ${errorOf(error).message}`);
  }
  const log = Object.assign((message: string, fields?: Record<string, unknown>) => writeLog(host, "info", formatLine(message, fields)), {
    debug: (message: string, fields?: Record<string, unknown>) => writeLog(host, "debug", formatLine(message, fields)),
    info: (message: string, fields?: Record<string, unknown>) => writeLog(host, "info", formatLine(message, fields)),
    warn: (message: string, fields?: Record<string, unknown>) => writeLog(host, "warn", formatLine(message, fields)),
    error: (message: string, fields?: Record<string, unknown>) => writeLog(host, "error", formatLine(message, fields)),
  });
  const context: HandlerContext = Object.freeze({
    idempotencyKey: data.idempotencyKey,
    signal: host.context.signal,
    env: Object.freeze({ ...data.env }),
    config: Object.freeze({ ...data.config }),
    resolveSecret: (name: string) => resolveDeclaredSecret(host, String(name)),
    fetch: async (url: string | URL, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) => {
      const answer = await policyFetch(fetchRequest(String(url), init), host.policy, host.context.signal);
      return toResponse(answer);
    },
    log,
    progress: (progress: number, total?: number, message?: string) => writeProgress(host, progress, total, message),
    connections: freezeConnections(data.connections),
    needs: needsOf(data.needs, (type, query) => readDeclaredFacts(host, data.needs, type, query)),
    pause: pauseOf(data.pause),
  });
  try {
    const output = await handler(input, context);
    return { ok: true, output: output === undefined ? null : JSON.parse(JSON.stringify(output)) };
  } catch (error) {
    if (host.context.signal.aborted) return fail("handler-cancelled", "the call was cancelled");
    return thrownFailure(errorOf(error));
  }
}

function formatLine(message: unknown, fields?: Record<string, unknown>): string {
  let text = typeof message === "string" ? message : safeJson(message);
  if (fields !== undefined) text += ` ${safeJson(fields)}`;
  return text;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function fetchRequest(url: string, init: { method?: string; headers?: Record<string, string>; body?: string }): FetchRequest {
  const headers: Record<string, string> = {};
  new Headers(init.headers ?? {}).forEach((value, key) => {
    headers[key] = value;
  });
  return { url, method: init.method ?? "GET", headers, ...(init.body === undefined || init.body === null ? {} : { body: String(init.body) }) };
}

function toResponse(answer: { status: number; headers: Record<string, string>; body: string }): Response {
  const empty = answer.status === 204 || answer.status === 304 || answer.status < 200;
  return new Response(empty ? null : answer.body, { status: answer.status, headers: answer.headers });
}

// ---- context-isolated and strict: a sandbox per call at a time ----

type SandboxMessage =
  | { t: "ready" }
  | { t: "load-failed"; message: string }
  | { t: "result"; id: number; ok: true; output: unknown }
  | { t: "result"; id: number; ok: false; error: { message: string; code?: string } }
  | { t: "log"; id: number; level: string; message: string }
  | { t: "progress"; id: number; progress: unknown; total?: unknown; message?: unknown }
  | { t: "secret"; id: number; rid: number; name: string }
  | { t: "memory"; id: number; rid: number; type: string; query?: string; limit?: number }
  | ({ t: "fetch"; id: number; rid: number } & FetchRequest);

type Exit = { memory: boolean; description: string };

type Level = "context-isolated" | "strict";

type Limits = { memMB?: number; cpuMs?: number };

/** What a sandbox is made for: warm sandboxes are shared by calls with the same spec only. */
type SandboxSpec = {
  level: Level;
  modulePath: string;
  /** The folder the sandbox reads: the handler's own, or its OCI bundle's root. */
  folder: string;
  network: ToolManifest["network"];
  limits: Limits;
};

/** One sandboxed process running one handler module. */
abstract class Sandbox {
  onMessage: (message: SandboxMessage) => void = () => {};
  onExit: (exit: Exit) => void = () => {};
  exited: Exit | null = null;
  readonly ready: Promise<void>;
  protected markReady!: () => void;
  protected markFailed!: (error: Error) => void;

  constructor() {
    this.ready = new Promise<void>((resolve, reject) => {
      this.markReady = resolve;
      this.markFailed = reject;
    });
    this.ready.catch(() => {});
  }

  protected received(message: SandboxMessage): void {
    if (message.t === "ready") this.markReady();
    else if (message.t === "load-failed") this.markFailed(new Error(message.message));
    else this.onMessage(message);
  }

  /** Stops the sandbox and removes, synchronously, what it holds on disk: the process is exiting. */
  dispose(): void {
    this.stop();
  }

  protected ended(exit: Exit): void {
    if (this.exited) return;
    this.exited = exit;
    live.delete(this);
    this.markFailed(new Error(`the sandbox ended before the handler loaded (${exit.description})`));
    this.onExit(exit);
  }

  abstract post(message: unknown): void;
  /** Busy (CPU) milliseconds since the sandbox started. */
  abstract cpuMs(): number;
  abstract stop(): void;
}

/** The folder a `strict` handler may write to (inside the sandbox's own `/tmp`). */
const STRICT_SCRATCH = "/tmp/kindgi-sandbox";

/** A child process under bubblewrap (lib/tools/sandbox/bwrap.ts) with its egress proxy, talking over the IPC channel. */
class ChildSandbox extends Sandbox {
  private child: ChildProcess | null = null;
  private egress: EgressProxy | null = null;
  private stopped = false;
  private stderr = "";
  private readonly startedAt = Date.now();

  constructor(spec: SandboxSpec) {
    super();
    this.start(spec).catch((error: unknown) => {
      this.egress?.close();
      this.ended({ memory: false, description: `could not start: ${errorOf(error).message}` });
    });
  }

  private async start({ level, modulePath, folder, network, limits }: SandboxSpec): Promise<void> {
    const scratch = level === "strict" ? STRICT_SCRATCH : "/tmp";
    const sandbox = await prepareSandbox({
      network,
      filesystem: "minimal",
      readOnly: [folder],
      directories: level === "strict" ? [STRICT_SCRATCH] : [],
      env: { TMPDIR: scratch, HOME: scratch, NODE_CHANNEL_FD: "3", NODE_CHANNEL_SERIALIZATION_MODE: "advanced" },
      cwd: scratch,
    });
    this.egress = sandbox.egress;
    if (this.stopped) throw new Error("stopped before it started");
    const args = [
      ...(level === "strict"
        ? ["--experimental-permission", `--allow-fs-read=${folder}/*`, `--allow-fs-read=${SANDBOX_EGRESS_DIR}/*`, `--allow-fs-read=${scratch}/*`, `--allow-fs-write=${scratch}/*`]
        : []),
      "--no-warnings",
      ...(limits.memMB ? [`--max-old-space-size=${limits.memMB}`, `--max-semi-space-size=${Math.max(1, Math.min(16, Math.ceil(limits.memMB / 16)))}`] : []),
      "--import",
      PREAMBLE_FILE,
      "--input-type=module",
      "-e",
      childSource(pathToFileURL(modulePath).href),
    ];
    // bwrap clears the environment; the sandbox's own is in its arguments.
    const child: ChildProcess = spawn(sandbox.command, sandbox.args([process.execPath, ...args]), { env: {} as NodeJS.ProcessEnv, stdio: ["ignore", "ignore", "pipe", "ipc"], serialization: "advanced" });
    this.child = child;
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on("message", (message: SandboxMessage) => this.received(message));
    child.on("error", () => this.ended({ memory: false, description: "could not start" }));
    child.on("exit", (code, signal) => {
      const memory = /heap out of memory|Reached heap limit|Allocation failed/i.test(this.stderr);
      this.egress?.close();
      this.ended({ memory, description: memory ? "out of memory" : signal ? `signal ${signal}` : `exit code ${code}` });
    });
  }

  post(message: unknown): void {
    if (this.child?.connected) this.child.send(message as never);
  }

  cpuMs(): number {
    const pid = this.child?.pid;
    if (pid === undefined) return 0;
    // No /proc (not Linux): wall-clock time bounds CPU time from above.
    return sandboxCpuMs(pid) ?? Date.now() - this.startedAt;
  }

  stop(): void {
    this.stopped = true;
    this.child?.kill("SIGKILL");
  }

  // The exit handler above closes the proxy when the child ends, but it never runs once this process is exiting.
  dispose(): void {
    this.stop();
    this.egress?.close();
  }
}

const pools = new Map<string, Sandbox[]>();
const live = new Set<Sandbox>();
let exitHook = false;

function create(spec: SandboxSpec): Sandbox {
  if (!exitHook) {
    exitHook = true;
    process.once("exit", disposeSandboxes);
  }
  const sandbox = new ChildSandbox(spec);
  live.add(sandbox);
  return sandbox;
}

/**
 * Stops every sandbox of this process and removes their folders, synchronously: at the process's exit (a process
 * ended by a signal it does not handle has no exit event; Next.js's server exits on SIGTERM and SIGINT), and when a
 * test file ends.
 */
export function disposeSandboxes(): void {
  pools.clear();
  for (const sandbox of live) sandbox.dispose();
}

function acquire(key: string, spec: SandboxSpec): Sandbox {
  const idle = pools.get(key) ?? [];
  while (idle.length) {
    const sandbox = idle.pop() as Sandbox;
    if (!sandbox.exited) return sandbox;
  }
  return create(spec);
}

function release(key: string, sandbox: Sandbox): void {
  if (sandbox.exited) return;
  const idle = pools.get(key) ?? [];
  pools.set(key, idle);
  if (idle.length >= MAX_IDLE) sandbox.stop();
  else idle.push(sandbox);
}

/** A stopped sandbox is replaced by a fresh one, warm for the next call. */
function replace(key: string, spec: SandboxSpec): void {
  const idle = pools.get(key) ?? [];
  pools.set(key, idle);
  if (idle.some((sandbox) => !sandbox.exited)) return;
  const fresh = create(spec);
  fresh.ready.then(() => release(key, fresh), () => fresh.stop());
}

let callSeq = 0;

async function runInSandbox(level: Level, manifest: ToolManifest, modulePath: string, folder: string, input: unknown, data: CallData, host: CallHost): Promise<HandlerInvokeResult> {
  const availability = await sandboxAvailability();
  if (!availability.ok) return fail("sandbox-unavailable", availability.message);
  const limits: Limits = { memMB: manifest.limits?.memMB, cpuMs: manifest.limits?.cpuMs };
  const spec: SandboxSpec = { level, modulePath, folder, network: manifest.network, limits };
  const key = JSON.stringify([level, modulePath, limits.memMB ?? null, limits.cpuMs ?? null, manifest.network ?? null]);
  const sandbox = acquire(key, spec);
  try {
    await sandbox.ready;
  } catch (error) {
    sandbox.stop();
    if (sandbox.exited?.memory) return fail("handler-memory-exceeded", `the handler used more than ${limits.memMB} MB of memory while loading and was stopped`);
    return fail("handler-load-failed", `the handler module could not be loaded: ${errorOf(error).message}`);
  }
  const id = ++callSeq;
  const outcome = await new Promise<{ result: HandlerInvokeResult; keep: boolean }>((resolve) => {
    let settled = false;
    const cpuStart = sandbox.cpuMs();
    const finish = (result: HandlerInvokeResult, keep: boolean) => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      if (grace) clearTimeout(grace);
      host.context.signal.removeEventListener("abort", onAbort);
      sandbox.onMessage = () => {};
      sandbox.onExit = () => {};
      resolve({ result, keep });
    };
    const poll = setInterval(() => {
      if (limits.cpuMs && sandbox.cpuMs() - cpuStart > limits.cpuMs) {
        sandbox.stop();
        finish(fail("handler-cpu-exceeded", `the handler used more than ${limits.cpuMs} ms of CPU time and was stopped`), false);
      }
    }, CPU_POLL_MS);
    let grace: NodeJS.Timeout | undefined;
    const onAbort = () => {
      sandbox.post({ t: "abort", id });
      grace = setTimeout(() => {
        sandbox.stop();
        finish(fail("handler-cancelled", "the call was cancelled and the handler did not stop in time"), false);
      }, ABORT_GRACE_MS);
    };
    if (host.context.signal.aborted) onAbort();
    else host.context.signal.addEventListener("abort", onAbort, { once: true });
    const previousExit = sandbox.onExit;
    sandbox.onExit = (exit) => {
      previousExit(exit);
      finish(
        exit.memory
          ? fail("handler-memory-exceeded", `the handler used more than ${limits.memMB} MB of memory and was stopped`)
          : fail("handler-crashed", `the handler's sandbox ended during the call (${exit.description})`),
        false,
      );
    };
    const reply = (rid: number, work: Promise<unknown>) => {
      work.then(
        (value) => !settled && sandbox.post({ t: "reply", rid, ok: true, value }),
        (error: unknown) => !settled && sandbox.post({ t: "reply", rid, ok: false, error: errorOf(error) }),
      );
    };
    sandbox.onMessage = (message) => {
      if (!("id" in message) || message.id !== id) return;
      if (message.t === "log") writeLog(host, message.level, message.message);
      else if (message.t === "progress") writeProgress(host, message.progress, message.total, message.message);
      else if (message.t === "secret") reply(message.rid, resolveDeclaredSecret(host, message.name));
      else if (message.t === "memory") reply(message.rid, readDeclaredFacts(host, data.needs, message.type, memoryQuery(message.query, { limit: message.limit })));
      else if (message.t === "fetch") reply(message.rid, policyFetch({ url: message.url, method: message.method, headers: message.headers, body: message.body }, host.policy, host.context.signal));
      else if (message.t === "result") {
        if (host.context.signal.aborted) finish(fail("handler-cancelled", "the call was cancelled"), true);
        else finish(message.ok ? { ok: true, output: message.output } : thrownFailure(message.error), true);
      }
    };
    sandbox.post({ t: "call", id, input, ctx: data });
  });
  if (outcome.keep) release(key, sandbox);
  else {
    sandbox.stop();
    replace(key, spec);
  }
  return outcome.result;
}
