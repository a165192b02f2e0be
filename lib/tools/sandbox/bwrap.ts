/**
 * The sandbox that code run for a tool is started in (pack handlers at `context-isolated` and `strict`, MCP stdio
 * servers): Debian's bubblewrap (`bwrap`, path overridable with `KINDGI_BWRAP`), with
 * - `--unshare-all`: new user, pid, ipc, uts, cgroup and network namespaces — the network one has only loopback, so
 *   the only way out is the egress proxy's Unix socket (lib/tools/sandbox/egress-proxy.ts), bound at
 *   `/run/kindgi-egress`, which applies the tool's `network` policy;
 * - `--die-with-parent --new-session --clearenv`, uid/gid 65534, a fresh `/dev`, `/proc` and `/tmp`;
 * - a filesystem of one of two kinds: `minimal` (handlers) is `/usr` read-only (with `/lib`, `/lib64`, `/bin`,
 *   `/sbin` linked to it), the node binary's prefix when it is not under `/usr`, and the folders the caller binds;
 *   node needs nothing of `/etc`. `host` (MCP stdio servers, which may be any program) is the host's whole
 *   filesystem read-only with the server's data folder, the artifact cache, the other sandboxes' egress folders and
 *   the server's `.env*` files hidden, and the folders the caller names writable. Inside, the code has the file
 *   access of the user the server runs as (bubblewrap maps it): run the server as an unprivileged user.
 *
 * Fail closed: {@link sandboxAvailability} probes once whether bwrap can create the namespaces; when it cannot,
 * nothing that needs a sandbox runs (calls fail with `sandbox-unavailable`) and the log says why, once.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { NetworkPolicy } from "@/lib/tools/manifest-schema";
import { defaultArtifactCacheDir } from "@/lib/tools/oci/config";
import { SANDBOX_EGRESS_DIR } from "./egress-preamble";
import { egressRoot, startEgressProxy, type EgressProxy } from "./egress-proxy";
import { log } from "@/lib/log";

/** The uid and gid code runs as inside a sandbox (`nobody`). */
const SANDBOX_ID = "65534";
const PROBE_TIMEOUT_MS = 10_000;

export const bwrapPath = (env: Record<string, string | undefined> = process.env) => env.KINDGI_BWRAP || "/usr/bin/bwrap";

/** A call that needs a sandbox, on a server that cannot make one. */
export class SandboxUnavailableError extends Error {
  readonly code = "sandbox-unavailable";
}

type Availability = { ok: true } | { ok: false; message: string };

const PROBE = Symbol.for("kindgi.sandbox.probe");
const shared = globalThis as unknown as Record<symbol, Promise<Availability> | undefined>;

/**
 * Whether sandboxes can be made here: bwrap runs `true` in a sandbox like the real ones, once per process (the
 * answer is kept). When it cannot, the server's log says why, once.
 */
export function sandboxAvailability(): Promise<Availability> {
  shared[PROBE] ??= probe().then((availability) => {
    if (!availability.ok) log.warn(availability.message);
    return availability;
  });
  return shared[PROBE];
}

/** Throws {@link SandboxUnavailableError} when sandboxes cannot be made here. */
export async function requireSandbox(): Promise<void> {
  const availability = await sandboxAvailability();
  if (!availability.ok) throw new SandboxUnavailableError(availability.message);
}

async function probe(): Promise<Availability> {
  const command = bwrapPath();
  const unavailable = (why: string): Availability => ({
    ok: false,
    message: `sandboxes are unavailable: ${why}; tools with sandbox "context-isolated" or "strict" and stdio MCP servers fail with sandbox-unavailable (they never run unconfined). Install bubblewrap (or set KINDGI_BWRAP) where user namespaces are allowed.`,
  });
  if (!existsSync(/*turbopackIgnore: true*/ command)) return unavailable(`${command} does not exist`);
  const args = [...baseArgs(), ...minimalFilesystem(), "--", "/usr/bin/true"];
  return new Promise((settle) => {
    let stderr = "";
    const child = spawn(/*turbopackIgnore: true*/ command, args, { stdio: ["ignore", "ignore", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => (stderr += chunk));
    child.on("error", (error) => {
      clearTimeout(timer);
      settle(unavailable(`${command} could not be started (${error.message})`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      settle(code === 0 ? { ok: true } : unavailable(`${command} could not create a sandbox (${signal ? `signal ${signal}` : `exit code ${code}`}${stderr.trim() ? `: ${stderr.trim().slice(0, 300)}` : ""})`));
    });
  });
}

function baseArgs(): string[] {
  return ["--unshare-all", "--die-with-parent", "--new-session", "--clearenv", "--uid", SANDBOX_ID, "--gid", SANDBOX_ID];
}

function minimalFilesystem(): string[] {
  const args = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin"];
  const prefix = dirname(dirname(realpathSync(/*turbopackIgnore: true*/ process.execPath)));
  if (prefix !== "/usr" && !prefix.startsWith("/usr/")) args.push("--ro-bind", prefix, prefix);
  return [...args, "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
}

/**
 * What the server keeps from a sandbox whose filesystem is the host's: its data folder, the OCI artifact cache (other
 * tenants' handler bundles) and `.env*` files.
 */
function hiddenHostPaths(): { folders: string[]; files: string[] } {
  const data = [resolve(/*turbopackIgnore: true*/ process.env.KINDGI_DATA_DIR ?? "./data/pgdata"), resolve(/*turbopackIgnore: true*/ defaultArtifactCacheDir())];
  const folders = [egressRoot(), ...data.filter((folder) => existsSync(/*turbopackIgnore: true*/ folder))];
  const cwd = process.cwd();
  const files = readdirSync(/*turbopackIgnore: true*/ cwd).filter((name) => name.startsWith(".env")).map((name) => join(cwd, name));
  return { folders, files };
}

export type SandboxOptions = {
  /** The tool's network policy, applied by the sandbox's egress proxy. */
  network: NetworkPolicy | undefined;
  filesystem: "minimal" | "host";
  /** Bound read-only at the same path. */
  readOnly?: string[];
  /** Bound read-write at the same path (`host` only; never a hidden folder, or one in the server's installation). */
  writable?: string[];
  /** Folders made inside the sandbox's `/tmp`. */
  directories?: string[];
  env: Record<string, string>;
  /** Working directory inside. */
  cwd: string;
};

export type PreparedSandbox = {
  command: string;
  /** bwrap's arguments to run `argv` in the sandbox. */
  args(argv: string[]): string[];
  egress: EgressProxy;
};

/** Starts a sandbox's egress proxy and builds its bwrap command line (throws {@link SandboxUnavailableError}). */
export async function prepareSandbox(options: SandboxOptions): Promise<PreparedSandbox> {
  await requireSandbox();
  const egress = await startEgressProxy(options.network);
  const args = baseArgs();
  if (options.filesystem === "minimal") {
    args.push(...minimalFilesystem());
    for (const path of options.readOnly ?? []) args.push("--ro-bind", path, path);
  } else {
    const hidden = hiddenHostPaths();
    args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run");
    // The server's own installation stays visible, read-only, where the fresh /tmp or /run would hide it.
    const installation = process.cwd();
    if (within(installation, "/tmp") || within(installation, "/run")) args.push("--ro-bind", installation, installation);
    const overlaps = (path: string, folder: string) => within(path, folder) || within(folder, path);
    // Never writable: a hidden folder, or anything of the server's installation (its code, its node_modules).
    for (const path of options.writable ?? []) if (!hidden.folders.some((folder) => overlaps(path, folder)) && !within(path, installation)) args.push("--bind", path, path);
    for (const path of options.readOnly ?? []) args.push("--ro-bind", path, path);
    // Last, so that no bind above uncovers them.
    for (const folder of hidden.folders) args.push("--tmpfs", folder);
    for (const file of hidden.files) args.push("--ro-bind", "/dev/null", file);
  }
  for (const path of options.directories ?? []) args.push("--dir", path);
  args.push("--ro-bind", egress.directory, SANDBOX_EGRESS_DIR);
  for (const [name, value] of Object.entries(options.env)) args.push("--setenv", name, value);
  args.push("--chdir", options.cwd);
  return { command: bwrapPath(), args: (argv) => [...args, "--", ...argv], egress };
}

/** Whether `path` is `folder` or inside it. */
const within = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

/**
 * CPU time (user + system, in ms) of the processes running under a bwrap process: the sandbox's code is a
 * descendant of it, never bwrap itself. Null without /proc (not Linux).
 */
export function sandboxCpuMs(bwrapPid: number): number | null {
  if (readProc(`/proc/${bwrapPid}/stat`) === null && !existsSync("/proc/self/stat")) return null;
  let total = 0;
  const pending = [bwrapPid];
  while (pending.length) {
    const pid = pending.pop() as number;
    const stat = readProc(`/proc/${pid}/stat`);
    if (stat === null) continue;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of the stat line (utime, stime), counted from the state field (3), in clock ticks.
    total += (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      // ended meanwhile
    }
    for (const task of tasks) pending.push(...(readProc(`/proc/${pid}/task/${task}/children`) ?? "").split(/\s+/).filter(Boolean).map(Number));
  }
  return total;
}

const CLOCK_TICK_MS = 10;

function readProc(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
