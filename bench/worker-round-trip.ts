/**
 * What running the embedded database (PGlite) on a worker thread instead of the server's own thread would cost a
 * statement: the same statements on an in-memory PGlite in this thread and on one in a `worker_threads` worker (a
 * message with the statement and its parameters, the rows back), and the hop alone (a worker that answers at once with
 * a row, no database). Each call is awaited before the next, as a turn's commits are. The rows run in alternating
 * blocks (5 rounds of 2,000 calls after 2,000 warm-up calls each), so they see the same machine.
 *
 * Run: npx tsx bench/worker-round-trip.ts
 */
import { Worker } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { mean, runAlternatingBlocks, type BlockRow } from "./common";

const ROUNDS = 5;
const BLOCK = 2000;
const WARMUP = 2000;

/** The statement-sized message: a registration's text is about 1 kB with 19 parameters. */
const SQL_PADDING = ` /* ${"x".repeat(900)} */`;
const PARAMS = Array.from({ length: 19 }, (_, i) => `value-${i}-${"-".repeat(20)}`);

// The worker: an in-memory PGlite that runs each message's statement, or (for `echo`) answers at once.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
let db;
parentPort.on("message", async (message) => {
  if (message.kind === "open") {
    const { PGlite } = await import("@electric-sql/pglite");
    db = new PGlite();
    await db.exec(message.sql);
    return parentPort.postMessage({ id: message.id, rows: [] });
  }
  if (message.kind === "echo") return parentPort.postMessage({ id: message.id, rows: [{ registeredAt: new Date() }] });
  try {
    const result = await db.query(message.sql, message.params);
    parentPort.postMessage({ id: message.id, rows: result.rows });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String(error) });
  }
});
`;

const SCHEMA = `CREATE TABLE item ("id" serial PRIMARY KEY, "tenantId" text NOT NULL, "name" text NOT NULL, "createdAt" timestamptz NOT NULL DEFAULT now()); CREATE INDEX item_tenant ON item ("tenantId", "createdAt");`;
const INSERT = `INSERT INTO item ("tenantId", "name") VALUES ($1, $2) RETURNING "createdAt"`;

async function main() {
  const worker = new Worker(WORKER_SOURCE, { eval: true });
  const pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  worker.on("message", (message: { id: number; rows?: unknown[]; error?: string }) => {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) waiter?.reject(new Error(message.error));
    else waiter?.resolve(message.rows ?? []);
  });
  // A worker that fails or exits answers nothing more: every call still waiting fails instead of hanging the run.
  const failPending = (error: Error) => {
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  worker.on("error", failPending);
  worker.on("exit", (code) => failPending(new Error(`the worker exited (code ${code})`)));
  const send = (kind: "open" | "echo" | "query", sql: string, params: unknown[] = []) =>
    new Promise<unknown[]>((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, kind, sql, params });
    });

  const local = new PGlite();
  try {
    await local.exec(SCHEMA);
    await send("open", SCHEMA);
    let n = 0;
    const rows: BlockRow[] = [
      { label: "SELECT 1, PGlite on this thread", call: () => local.query(`SELECT 1 AS one${SQL_PADDING}`), micros: [] },
      { label: "SELECT 1, PGlite on a worker", call: () => send("query", `SELECT 1 AS one${SQL_PADDING}`), micros: [] },
      { label: "one-row INSERT, PGlite on this thread", call: () => local.query(`${INSERT}${SQL_PADDING}`, ["tenant", `row-${++n}`]), micros: [] },
      { label: "one-row INSERT, PGlite on a worker", call: () => send("query", `${INSERT}${SQL_PADDING}`, ["tenant", `row-${++n}`]), micros: [] },
      { label: "the hop alone (worker answers at once)", call: () => send("echo", `SELECT 1${SQL_PADDING}`, PARAMS), micros: [] },
    ];
    await runAlternatingBlocks(rows, { rounds: ROUNDS, block: BLOCK, warmup: WARMUP });
    const width = Math.max(...rows.map((row) => row.label.length));
    console.log(`${ROUNDS} rounds of ${BLOCK} calls a row, after ${WARMUP} warm-up calls; µs a call, one call at a time\n`);
    for (const row of rows) console.log(`${row.label.padEnd(width)}  ${mean(row.micros).toFixed(1).padStart(7)} µs   by round ${row.micros.map((value) => value.toFixed(1)).join(" ")}`);
    const [selectHere, selectWorker, insertHere, insertWorker] = rows.map((row) => mean(row.micros));
    console.log(`\nSELECT 1 on a worker: ${(selectWorker / selectHere).toFixed(2)}× on this thread (+${(selectWorker - selectHere).toFixed(1)} µs)`);
    console.log(`one-row INSERT on a worker: ${(insertWorker / insertHere).toFixed(2)}× on this thread (+${(insertWorker - insertHere).toFixed(1)} µs)`);
  } finally {
    await local.close();
    await worker.terminate();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack ?? error.message : error);
  process.exitCode = 1;
});
