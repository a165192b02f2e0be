import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { dropDatabase } from "../../lib/db/drop-database.mjs";

export const root = path.resolve(import.meta.dirname, "../..");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** `output`: what the server wrote on stdout and stderr, interleaved as it came; `stdout`: what it wrote on stdout only (its log). */
export type RunningServer = { baseUrl: string; process: ChildProcessByStdio<null, Readable, Readable>; output: () => string; stdout: () => string; stop: () => Promise<void>; dataDir?: string };

/**
 * Starts the product the way a user does (`node scripts/start.mjs`, i.e. `npm start`) on 127.0.0.1 and a free port,
 * and waits for GET /health. The build is expected to be fresh (global setup builds once).
 */
export async function startServer(options: { env?: Record<string, string | undefined>; dataDir?: string } = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = options.env?.DATABASE_URL ? undefined : options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-test-"));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: "127.0.0.1", KINDGI_SKIP_BUILD: "1", NEXT_TELEMETRY_DISABLED: "1" };
  delete env.DATABASE_URL;
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  if (dataDir) env.KINDGI_DATA_DIR = path.join(dataDir, "pgdata");
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(process.execPath, [path.join(root, "scripts/start.mjs")], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr.on("data", (chunk: Buffer) => (output += chunk));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // already gone
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${baseUrl}/health`);
      if (response.ok) return { baseUrl, process: child, output: () => output, stdout: () => stdout, stop, dataDir };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  throw new Error(`server did not become healthy:\n${output}`);
}

export const newOperatorToken = () => `op_${randomUUID()}`;

/** A new database on the test PostgreSQL server, dropped by `drop()`. */
export async function freshPostgresDatabase(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const pg = (await import("pg")).default;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const name = `kindgi_test_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await dropDatabase(admin, name);
      await admin.end();
    },
  };
}

/**
 * Waits until every process of the group `pgid` has exited (zombies count as exited), e.g. after SIGKILL, when the
 * Next server a start script spawned may take a moment to go.
 */
export async function waitForProcessGroupExit(pgid: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const members = fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return fields[0] !== "Z" && Number(fields[2]) === pgid ? [pid] : [];
      } catch {
        return [];
      }
    });
    if (members.length === 0) return;
    if (Date.now() > deadline) throw new Error(`processes ${members.join(", ")} of group ${pgid} are still running`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A server of a test file's own (see {@link startOwnServer}). */
export type OwnServer = { server: RunningServer; operatorToken: string; database: { url: string; drop: () => Promise<void> } | null; handlers: string; stop: () => Promise<void> };

/**
 * Starts a server of a test file's own on the test backend (a fresh PostgreSQL database when KINDGI_TEST_DATABASE_URL
 * is set, else an embedded one), with NODE_ENV=test (pack handlers run only then), dev providers, a secrets key and an
 * operator token, and `env` on top; the test pack handlers (tests/fixtures/handlers) are copied to `handlers`.
 * `stop` stops it and removes what it made.
 */
export async function startOwnServer(env: Record<string, string | undefined> = {}): Promise<OwnServer> {
  const operatorToken = newOperatorToken();
  const handlers = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-handlers-"));
  fs.cpSync(path.join(root, "tests/fixtures/handlers"), handlers, { recursive: true });
  const database = process.env.KINDGI_TEST_DATABASE_URL ? await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL) : null;
  const server = await startServer({ env: { NODE_ENV: "test", DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_DEV_PROVIDERS: "1", KINDGI_SECRETS_KEY: randomBytes(32).toString("base64"), ...env } });
  return {
    server,
    operatorToken,
    database,
    handlers,
    stop: async () => {
      await server.stop();
      await database?.drop();
      if (server.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
      fs.rmSync(handlers, { recursive: true, force: true });
    },
  };
}
