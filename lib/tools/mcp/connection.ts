/**
 * MCP connections: one pooled `@modelcontextprotocol/sdk` client per endpoint per process, connected lazily,
 * dropped when its transport closes (a stdio server that exited, an HTTP session that was lost) and connected again
 * on the next use. Stdio servers run only when `KINDGI_MCP_STDIO=allow`, with an allowlisted environment, each under
 * bubblewrap (lib/tools/sandbox/bwrap.ts) with no network of its own: what it sends leaves through an egress proxy
 * that applies the calling tool's `network` policy, so the pool keeps one process per endpoint and policy (a
 * connection no tool asked for, to list the server's tools, gets policy `none`). Its filesystem is the host's,
 * read-only (the server's data folder, `.env*` files and the other sandboxes' egress folders hidden; `/tmp` its
 * own), except the folders its command line names (an absolute path argument, or the value of `NAME=/path`: that
 * folder, or a file's folder), which it may write: servers keep their files where their arguments say. URL
 * endpoints obey the network rules of HTTP tools (non-public addresses refused unless
 * `KINDGI_MCP_ALLOW_PRIVATE_URLS=1`; cloud metadata addresses always), checked for every request, which then connects
 * to the address that was checked (DNS-pinned). Every child process is ended on shutdown.
 */
import { realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, resolve as resolvePath } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { parseMcpEndpoint, type McpEndpoint } from "../validate-manifest";
import { addressCategory, checkDestination, isMetadataHostName, ToolNetworkError, type Destination, type HostResolver } from "../network-policy";
import { pinnedFetch, type PinnedFetch } from "../pinned-fetch";
import type { NetworkPolicy } from "../manifest-schema";
import { prepareSandbox, SandboxUnavailableError } from "../sandbox/bwrap";
import { LAUNCHER_FILE } from "../sandbox/egress-preamble";

/** Environment variables a stdio server inherits from this server; nothing else (no secrets, no DATABASE_URL). */
export const STDIO_ENV_ALLOWLIST = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM", "NODE_PATH"] as const;
/** Default limit of one tool call. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
const CONNECT_TIMEOUT_MS = 20_000;

export const stdioAllowed = (env: Record<string, string | undefined> = process.env) => env.KINDGI_MCP_STDIO === "allow";
export const privateUrlsAllowed = (env: Record<string, string | undefined> = process.env) => env.KINDGI_MCP_ALLOW_PRIVATE_URLS === "1";
export const mcpTimeoutMs = (env: Record<string, string | undefined> = process.env) => {
  const value = Number(env.KINDGI_MCP_TIMEOUT_MS);
  return Number.isInteger(value) && value > 0 ? Math.min(value, 600_000) : DEFAULT_MCP_TIMEOUT_MS;
};

/** Why a connection could not be made, in terms the API and the kernel map to codes. */
export type McpConnectErrorKind = "stdio-disabled" | "network-denied" | "connection-failed" | "sandbox-unavailable";

export class McpConnectError extends Error {
  constructor(readonly kind: McpConnectErrorKind, message: string) {
    super(message);
    this.name = "McpConnectError";
  }
}

/**
 * What a connection needs: the endpoint and its headers, secrets already resolved (never logged). `network` is the
 * calling tool's policy, which binds a stdio server (absent: `none`). `lookup` replaces the system resolver for the
 * URL checks (tests).
 */
export type McpConnectionConfig = { endpoint: string; headers: Record<string, string>; network?: NetworkPolicy; lookup?: HostResolver };

export type McpConnection = { client: Client; transport: Transport; server: { name: string | null; version: string | null }; pid: number | null; closed: boolean };

/**
 * Splits a stdio command line into program and arguments: whitespace separates, single and double quotes group,
 * a backslash escapes the next character. No shell runs: no variables, globs, pipes or redirections.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let current: string | null = null;
  let quote: string | null = null;
  for (let index = 0; index < line.length; index++) {
    const char = line[index];
    if (quote) {
      if (char === quote) quote = null;
      else if (char === "\\" && quote === '"' && index + 1 < line.length) current += line[++index];
      else current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      current ??= "";
    } else if (char === "\\" && index + 1 < line.length) {
      current = (current ?? "") + line[++index];
    } else if (/\s/.test(char)) {
      if (current !== null) words.push(current);
      current = null;
    } else {
      current = (current ?? "") + char;
    }
  }
  if (quote) throw new McpConnectError("connection-failed", "the stdio command line has an unclosed quote");
  if (current !== null) words.push(current);
  return words;
}

/** The parsed endpoint, or a connect error when it is malformed. */
export function parseEndpoint(endpoint: string): McpEndpoint {
  const parsed = parseMcpEndpoint(endpoint);
  if (typeof parsed === "string") throw new McpConnectError("connection-failed", `the endpoint ${parsed}`);
  return parsed;
}

/** Checks a URL against the network rules of MCP endpoints (see the module comment); the address to connect to. */
export async function checkMcpUrl(url: URL, lookup?: HostResolver): Promise<Destination> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  // Cloud metadata stays refused even when private addresses are allowed: as a name, or as its address.
  const allowPrivate = privateUrlsAllowed() && !isMetadataHostName(hostname) && addressCategory(hostname) !== "cloud metadata";
  try {
    return await checkDestination(url, allowPrivate ? { kind: "allowlist", hosts: [url.hostname] } : { kind: "unrestricted" }, { lookup });
  } catch (error) {
    if (error instanceof ToolNetworkError) {
      const hint = error.code === "network-denied" && !privateUrlsAllowed() ? " (a server may allow loopback and private MCP endpoints with KINDGI_MCP_ALLOW_PRIVATE_URLS=1)" : "";
      throw new McpConnectError(error.code === "network-denied" ? "network-denied" : "connection-failed", `MCP ${error.message}${hint}`);
    }
    throw error;
  }
}

/**
 * A `fetch` that checks every request's destination first, connects to the address it checked (DNS-pinned, see
 * lib/tools/pinned-fetch.ts) and adds the endpoint's headers.
 */
function checkedFetch(headers: Record<string, string>, lookup?: HostResolver): PinnedFetch {
  const pinned = pinnedFetch((url) => checkMcpUrl(url, lookup));
  const fetchChecked: typeof fetch = (input, init) => {
    const merged = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return pinned.fetch(input, { ...init, headers: merged });
  };
  return { fetch: fetchChecked, close: pinned.close };
}

function stdioEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of STDIO_ENV_ALLOWLIST) if (process.env[name] !== undefined) env[name] = process.env[name] as string;
  return env;
}

/** Folders of the system a stdio server never writes to, even when its command line names them. */
const SYSTEM_FOLDERS = ["/usr", "/etc", "/boot", "/proc", "/sys", "/dev", "/bin", "/sbin", "/lib", "/lib64", "/var/lib"];

/**
 * The folders a stdio command line names, for its server to write: each absolute path among the arguments (or after
 * `NAME=`) that is a folder, or the folder of one that is a file or does not exist yet. Never `/` or a system folder.
 */
/**
 * The real folders of the paths a stdio command line names through symlinks (a link in /tmp to a package's entry,
 * say), bound read-only so that the server finds its code wherever the link points.
 */
function linkedFolders(args: string[]): string[] {
  const folders = new Set<string>();
  for (const arg of args) {
    const path = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : arg;
    if (!isAbsolute(path)) continue;
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      continue;
    }
    if (real !== resolvePath(path)) folders.add(isFolder(real) ? real : dirname(real));
  }
  return [...folders];
}

function namedFolders(args: string[]): string[] {
  const folders = new Set<string>();
  for (const arg of args) {
    const path = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : arg;
    if (!isAbsolute(path)) continue;
    const folder = isFolder(path) ? resolvePath(path) : dirname(resolvePath(path));
    if (folder === "/" || !isFolder(folder) || SYSTEM_FOLDERS.some((system) => folder === system || folder.startsWith(`${system}/`))) continue;
    folders.add(folder);
  }
  return [...folders];
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function openTransport(config: McpConnectionConfig): Promise<{ transport: Transport; dispose?: () => void }> {
  const endpoint = parseEndpoint(config.endpoint);
  if (endpoint.transport === "stdio") {
    if (!stdioAllowed()) throw new McpConnectError("stdio-disabled", "stdio MCP endpoints start a process on this server's host and are disabled; set KINDGI_MCP_STDIO=allow on the server to enable them");
    const [command, ...args] = splitCommandLine(endpoint.command);
    if (!command) throw new McpConnectError("connection-failed", "the stdio command line is empty");
    let sandbox;
    try {
      sandbox = await prepareSandbox({ network: config.network ?? { kind: "none" }, filesystem: "host", writable: namedFolders(args), readOnly: linkedFolders(args), env: { ...stdioEnvironment(), HOME: "/tmp", TMPDIR: "/tmp" }, cwd: process.cwd() });
    } catch (error) {
      if (error instanceof SandboxUnavailableError) throw new McpConnectError("sandbox-unavailable", `the stdio MCP server was not started: ${error.message}`);
      throw error;
    }
    // bwrap runs the launcher (the loopback HTTP proxy for programs that are not Node), which runs the command.
    const transport = new StdioClientTransport({ command: sandbox.command, args: sandbox.args([process.execPath, LAUNCHER_FILE, command, ...args]), env: {}, stderr: "ignore" });
    return { transport, dispose: () => sandbox.egress.close() };
  }
  await checkMcpUrl(endpoint.url, config.lookup);
  const { fetch: fetcher, close } = checkedFetch(config.headers, config.lookup);
  if (endpoint.transport === "http") return { transport: new StreamableHTTPClientTransport(endpoint.url, { fetch: fetcher }), dispose: close };
  return { transport: new SSEClientTransport(endpoint.url, { fetch: fetcher, eventSourceInit: { fetch: fetcher } }), dispose: close };
}

/** Connects a new client; the caller owns it. */
export async function connect(config: McpConnectionConfig): Promise<McpConnection> {
  const { transport, dispose } = await openTransport(config);
  const client = new Client({ name: "kindgi", version: "1.0.0" }, { capabilities: {} });
  const connection: McpConnection = { client, transport, server: { name: null, version: null }, pid: null, closed: false };
  client.onclose = () => {
    connection.closed = true;
    dispose?.();
  };
  try {
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
  } catch (error) {
    await client.close().catch(() => undefined);
    dispose?.();
    if (error instanceof McpConnectError) throw error;
    throw new McpConnectError("connection-failed", `could not connect to the MCP server: ${errorMessage(error)}`);
  }
  const info = client.getServerVersion();
  connection.server = { name: info?.name ?? null, version: info?.version ?? null };
  connection.pid = transport instanceof StdioClientTransport ? transport.pid : null;
  const pid = connection.pid;
  if (pid !== null) {
    livePids.add(pid);
    const previous = client.onclose;
    client.onclose = () => {
      livePids.delete(pid);
      previous?.();
    };
  }
  return connection;
}

/**
 * The process's pool: one live connection per key (tenant + endpoint + headers). Kept on `globalThis`, since the
 * server's bundles (each route, the kernel's worker) may each load their own copy of this module.
 */
const POOL = Symbol.for("kindgi.mcp.pool");
const shared = globalThis as unknown as Record<symbol, { pool: Map<string, Promise<McpConnection>>; livePids: Set<number> } | undefined>;
const state = (shared[POOL] ??= { pool: new Map(), livePids: new Set() });
const pool = state.pool;

const endpointKey = (tenantId: string, config: McpConnectionConfig) => `${tenantId}\u0000${config.endpoint}\u0000${JSON.stringify(Object.entries(config.headers).sort())}`;

/** The pool's key: tenant, endpoint, headers and the tool's network policy (see the module comment). */
export const poolKey = (tenantId: string, config: McpConnectionConfig) => `${endpointKey(tenantId, config)}\u0000${JSON.stringify(config.network ?? { kind: "none" })}`;

/** Drops (and closes) every pooled connection to an endpoint, whatever the policy it was made for. */
export async function dropEndpointConnections(tenantId: string, config: McpConnectionConfig): Promise<void> {
  const prefix = `${endpointKey(tenantId, config)}\u0000`;
  await Promise.all([...pool.keys()].filter((key) => key.startsWith(prefix)).map((key) => dropConnection(key)));
}

/** The pooled connection for `key`, connected when there is none or the last one closed. */
export async function pooledConnection(key: string, config: McpConnectionConfig): Promise<McpConnection> {
  const existing = pool.get(key);
  if (existing) {
    const connection = await existing.catch(() => null);
    if (connection && !connection.closed) return connection;
    if (pool.get(key) === existing) pool.delete(key);
    if (connection) await connection.client.close().catch(() => undefined);
  }
  const created = connect(config);
  pool.set(key, created);
  created.catch(() => {
    if (pool.get(key) === created) pool.delete(key);
  });
  return created;
}

/** Drops (and closes) the pooled connection for `key` if it is `connection`, or whatever is there when undefined. */
export async function dropConnection(key: string, connection?: McpConnection): Promise<void> {
  const existing = pool.get(key);
  if (!existing) return;
  const current = await existing.catch(() => null);
  if (connection && current !== connection) return;
  if (pool.get(key) === existing) pool.delete(key);
  if (current) {
    current.closed = true;
    await current.client.close().catch(() => undefined);
  }
}

/** The pid of the pooled stdio server for `key`, when one runs. */
export async function pooledPid(key: string): Promise<number | null> {
  const connection = await pool.get(key)?.catch(() => null);
  return connection && !connection.closed ? connection.pid : null;
}

/** Closes every pooled connection (stdio servers are ended). */
export async function closeAllConnections(): Promise<void> {
  const all = [...pool.values()];
  pool.clear();
  await Promise.all(all.map(async (pending) => (await pending.catch(() => null))?.client.close().catch(() => undefined)));
}

/** Pids of the stdio servers this process started and that still run, for the synchronous exit hook. */
const livePids = state.livePids;

const SHUTDOWN_HOOK = Symbol.for("kindgi.mcp.shutdown");
const globals = globalThis as unknown as Record<symbol, boolean>;
if (!globals[SHUTDOWN_HOOK] && typeof process !== "undefined" && typeof process.on === "function") {
  globals[SHUTDOWN_HOOK] = true;
  // Stdio servers must not outlive this server (they also exit when their stdin closes).
  process.on("exit", () => {
    for (const pid of livePids) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
  });
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
