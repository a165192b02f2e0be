/**
 * The embedded database on a thread of its own: PGlite (PostgreSQL compiled to WebAssembly) runs every statement
 * synchronously on the thread that owns it, so on the server's thread each write held up every other request for as
 * long as the database took. Here a `worker_threads` worker owns the PGlite instance and the server's thread only sends
 * statements and receives rows.
 *
 * `PGliteThread` answers what the product asks of a PGlite instance (what `pglite-prisma-adapter` calls: `query`,
 * `exec`, `transaction`; and the kernel's prepared statements, see `preparedQuery`) with PGlite's own semantics: a
 * transaction holds the database until it ends; one statement runs at a time (the worker answers its messages in the
 * order they came, so a statement outside a transaction is sent without waiting for the answers to those before
 * it); the same `BEGIN`/`COMMIT`/`ROLLBACK` handling, the same result shape and the same `DatabaseError`. Parsers are
 * functions, which cannot cross to the worker: a caller's parsers (the adapter's) are applied here to the raw text the
 * worker sends back for their types; PGlite's default parsers run in the worker.
 */
import { Worker } from "node:worker_threads";
import { messages, Mutex, TransactionAbortedError, type PGlite, type Results, type Transaction } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { log } from "@/lib/log";

type Parser = (text: string, typeId: number) => unknown;
type QueryOptions = { rowMode?: "array" | "object"; parsers?: Record<number, Parser> };
type WorkerError = { message: string; database: boolean; fields: Record<string, unknown> };
type Reply = { id: number; result?: unknown; error?: WorkerError };

/**
 * The worker's source (CommonJS, evaluated: it needs no file of its own next to the server's bundle). It answers one
 * message at a time, in the order they came.
 */
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const { createRequire } = require("node:module");
const path = require("node:path");
const identity = (text) => text;
const requireFromRoot = createRequire(path.join(workerData.root, "package.json"));
const { PGlite, protocol, parse, messages } = requireFromRoot("@electric-sql/pglite");
const pglite = new PGlite(workerData.dataDir ?? undefined);
// A new WAL segment is created empty instead of written full of zeros first (16 MB: a 20-50 ms stall every few
// thousand writes). The records' checksums find the end of the WAL either way.
const ready = pglite.exec("SET wal_init_zero = off");
const keepRaw = new Map();
const withDefaults = new Map();
const prepared = new Set();

function concat(parts) {
  const all = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return all;
}
function rawParsers(oids) {
  const key = oids.join(",");
  let parsers = keepRaw.get(key);
  if (!parsers) keepRaw.set(key, (parsers = Object.fromEntries(oids.map((oid) => [oid, identity]))));
  return parsers;
}
/** PGlite's parsers but raw text for the types in oids, merged once (parseResults copies both tables on every call given options). */
function preparedParsers(oids) {
  const key = oids.join(",");
  let parsers = withDefaults.get(key);
  if (!parsers) withDefaults.set(key, (parsers = { ...pglite.parsers, ...rawParsers(oids) }));
  return parsers;
}
function errorOf(error) {
  const fields = {};
  if (error && typeof error === "object") for (const [key, value] of Object.entries(error)) if (key !== "queryOptions" && typeof value !== "function") fields[key] = value;
  return { message: String(error && error.message !== undefined ? error.message : error), database: error instanceof messages.DatabaseError, fields };
}
async function answer(message) {
  await ready;
  switch (message.op) {
    case "query":
      return await pglite.query(message.sql, message.params, { rowMode: message.rowMode, parsers: message.raw.length ? rawParsers(message.raw) : undefined });
    case "exec":
      return await pglite.exec(message.sql);
    case "prepared":
      return pglite._runExclusiveTransaction(() =>
        pglite._runExclusiveQuery(async () => {
          if (!prepared.has(message.name)) {
            await pglite.execProtocol(concat([protocol.serialize.parse({ name: message.name, text: message.sql, types: [] }), protocol.serialize.sync()]));
            prepared.add(message.name);
          }
          const bytes = concat([protocol.serialize.bind({ statement: message.name, values: message.values }), protocol.serialize.describe({ type: "P" }), protocol.serialize.execute({}), protocol.serialize.sync()]);
          const { messages: replies } = await pglite.execProtocol(bytes);
          return parse.parseResults(replies, preparedParsers(message.raw))[0];
        }),
      );
    case "close":
      await pglite.close();
      return null;
    default:
      throw new Error("unknown operation " + message.op);
  }
}
let queue = Promise.resolve();
parentPort.on("message", (message) => {
  queue = queue.then(() => answer(message).then(
    (result) => parentPort.postMessage({ id: message.id, result }),
    (error) => parentPort.postMessage({ id: message.id, error: errorOf(error) }),
  ));
});
`;

/** The caller's parser types, numbers: the worker sends their columns back as text. */
const parserTypes = new WeakMap<object, number[]>();
function typesOf(parsers: Record<number, Parser> | undefined): number[] {
  if (!parsers) return [];
  let types = parserTypes.get(parsers);
  if (!types) parserTypes.set(parsers, (types = Object.keys(parsers).map(Number)));
  return types;
}

/** The error as PGlite would have thrown it: a `DatabaseError` (code, detail, query, params…) or an `Error`. */
function rebuild(error: WorkerError): Error {
  const rebuilt = error.database ? new messages.DatabaseError(error.message, 0, "error") : new Error(error.message);
  return Object.assign(rebuilt, error.fields);
}

/** PGlite on a worker thread of its own; the data folder's, or in memory without one. */
export class PGliteThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly #transactionLock = new Mutex();
  #nextId = 1;
  /** Why no statement can run any more (closed, or the thread ended), once that is so. */
  #ended: Error | undefined;

  constructor(dataDir?: string) {
    // No --import of the server's HTTP front (execArgv is inherited otherwise); the module resolves from the app's root.
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { dataDir: dataDir ?? null, root: process.cwd() } });
    this.#worker.on("message", (reply: Reply) => {
      const waiting = this.#waiting.get(reply.id);
      if (!waiting) return;
      this.#waiting.delete(reply.id);
      if (this.#waiting.size === 0) this.#worker.unref();
      if (reply.error) waiting.reject(rebuild(reply.error));
      else waiting.resolve(reply.result);
    });
    const end = (error: Error) => {
      this.#ended ??= error;
      for (const waiting of this.#waiting.values()) waiting.reject(this.#ended);
      this.#waiting.clear();
    };
    this.#worker.on("error", (error) => {
      log.error("the database thread failed", { err: error });
      end(new Error(`the database thread failed: ${error.message}`));
    });
    this.#worker.on("exit", (code) => end(new Error(`the database thread ended (exit code ${code})`)));
    // The thread keeps the process alive only while a statement is waiting for it.
    this.#worker.unref();
  }

  #call<T>(message: Record<string, unknown>): Promise<T> {
    if (this.#ended) return Promise.reject(this.#ended);
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      // A value that cannot be copied to the thread (a function, a symbol) is refused here, before anything waits.
      try {
        this.#worker.postMessage({ ...message, id });
      } catch (error) {
        return reject(error);
      }
      if (this.#waiting.size === 0) this.#worker.ref();
      this.#waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
  }

  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.#transactionLock.runExclusive(fn);
  }

  /** One statement, as PGlite's `query`: it waits for any open transaction to end. */
  query<T>(sql: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    return this.#query<T>(sql, params, options, true);
  }

  /** Statements without parameters, as PGlite's `exec`. */
  exec(sql: string): Promise<Results[]> {
    return this.#outside<Results[]>({ op: "exec", sql });
  }

  /**
   * A statement outside any transaction. The thread answers its messages one at a time, in the order they came, so a
   * statement is sent at once unless a transaction holds the database: it does not wait for the answers to the
   * statements sent before it (the thread would sit idle while this one is busy with other requests), it runs after them
   * and before a transaction that begins later. While a transaction is open it waits for it to end, as on PGlite.
   */
  #outside<R>(message: Record<string, unknown>): Promise<R> {
    if (!this.#transactionLock.isLocked()) return this.#call<R>(message);
    // Sent while the lock is held, answered after it is released: `{ answer }` keeps runExclusive from awaiting it.
    return this._runExclusiveTransaction(async () => ({ answer: this.#call<R>(message) })).then(({ answer }) => answer);
  }

  async #parsed<T>(answer: Promise<Results<T>>, options: QueryOptions | undefined, raw: number[]): Promise<Results<T>> {
    const result = await answer;
    if (raw.length) applyParsers(result as Results<unknown>, options!.parsers!, options?.rowMode);
    return result;
  }

  /** A statement outside any transaction, or (`outside` false) one of the open transaction, which holds the database. */
  #query<T>(sql: string, params: unknown[], options: QueryOptions | undefined, outside: boolean): Promise<Results<T>> {
    const raw = typesOf(options?.parsers);
    const message = { op: "query", sql, params, rowMode: options?.rowMode, raw };
    return this.#parsed(outside ? this.#outside<Results<T>>(message) : this.#call<Results<T>>(message), options, raw);
  }

  #exec(sql: string): Promise<Results[]> {
    return this.#call<Results[]>({ op: "exec", sql });
  }

  /** PGlite's `transaction`: `BEGIN`, the callback's statements, then `COMMIT` (or `ROLLBACK` if it throws). */
  transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    return this._runExclusiveTransaction(async () => {
      await this.#exec("BEGIN");
      let closed = false;
      const open = () => {
        if (closed) throw new Error("Transaction is closed");
      };
      const tx = {
        query: async <R>(sql: string, params?: unknown[], options?: QueryOptions) => (open(), this.#query<R>(sql, params ?? [], options, false)),
        exec: async (sql: string) => (open(), this.#exec(sql)),
        rollback: async () => {
          open();
          await this.#exec("ROLLBACK");
          closed = true;
        },
        get closed() {
          return closed;
        },
      } as unknown as Transaction;
      try {
        const result = await callback(tx);
        if (!closed) {
          closed = true;
          const [commit] = await this.#exec("COMMIT");
          // COMMIT of a transaction a failed statement aborted rolls it back, as PGlite's `transaction` reports.
          if ((commit as Results & { command?: string }).command === "ROLLBACK") throw new TransactionAbortedError();
        }
        return result;
      } catch (error) {
        if (!closed) {
          closed = true;
          await this.#exec("ROLLBACK");
        }
        throw error;
      }
    });
  }

  /**
   * One of the kernel's named statements (see `statementName` in lib/db.ts): parsed and planned once (Parse), then each
   * call is Bind/Execute/Sync. Values are text (or null); rows come back as objects, with the caller's parsers applied
   * as `query` applies them.
   */
  async preparedQuery<T>(name: string, sql: string, values: (string | null)[], options?: Pick<QueryOptions, "parsers">): Promise<T[]> {
    const raw = typesOf(options?.parsers);
    const result = await this.#parsed(this.#outside<Results<T>>({ op: "prepared", name, sql, values, raw }), options, raw);
    return result.rows;
  }

  /** Closes the database (a checkpoint) and ends its thread; later statements are refused. */
  async close(): Promise<void> {
    if (this.#ended) return;
    await this._runExclusiveTransaction(async () => {
      await this.#call({ op: "close" });
      // Set before the lock is released: a statement that waited for it is refused, not sent to a closed database.
      this.#ended = new Error("the database is closed");
    });
    await this.#worker.terminate();
  }
}

function applyParsers(result: Results<unknown>, parsers: Record<number, Parser>, rowMode: QueryOptions["rowMode"]) {
  const columns = result.fields.map((field, index) => ({ index, name: field.name, typeId: field.dataTypeID, parser: parsers[field.dataTypeID] })).filter((column) => column.parser);
  if (!columns.length) return;
  for (const row of result.rows as Record<string | number, unknown>[]) {
    for (const column of columns) {
      const key = rowMode === "array" ? column.index : column.name;
      const value = row[key];
      if (value !== null && value !== undefined) row[key] = column.parser!(value as string, column.typeId);
    }
  }
}

/** Prisma's PGlite adapter on the thread: it calls only `query`, `exec` and `transaction`, which PGliteThread answers as PGlite does. */
export function prismaAdapter(thread: PGliteThread): PrismaPGlite {
  return new PrismaPGlite(thread as unknown as PGlite);
}
