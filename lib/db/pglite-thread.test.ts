import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { messages, PGlite, TransactionAbortedError } from "@electric-sql/pglite";
import { Prisma, PrismaClient } from "@/lib/generated/prisma/client";
import { PGliteThread, prismaAdapter } from "@/lib/db/pglite-thread";

const thread = new PGliteThread();
const local = new PGlite();
afterAll(async () => {
  await thread.close();
  await local.close();
});

// Parsers of the kind the Prisma adapter passes (functions, which cannot cross to the database's thread).
const parsers = {
  1114: (text: string) => `timestamp:${text}`,
  3802: (text: string) => `jsonb:${text}`,
  20: (text: string) => BigInt(text),
  17: (text: string) => `bytea:${text}`,
};

const TYPES_SQL = `SELECT '2026-03-29 00:30:15.25'::timestamp(3) AS t, '{"x": [1, 2]}'::jsonb AS j, 9007199254740993::int8 AS big,
  '\\x0102'::bytea AS bin, ARRAY['a', 'b']::text[] AS arr, $1::int AS n, $2::text AS s, $3::boolean AS b, NULL::jsonb AS none,
  '2026-01-02T03:04:05Z'::timestamptz AS tz`;

describe("PGliteThread (the embedded database on its own thread)", () => {
  it("answers a query as PGlite does, with the caller's parsers applied to their types", async () => {
    for (const options of [{ rowMode: "array" as const, parsers }, { parsers }, undefined]) {
      const there = await thread.query(TYPES_SQL, [7, "word", true], options);
      const here = await local.query(TYPES_SQL, [7, "word", true], options);
      expect(there.rows).toEqual(here.rows);
      expect(there.fields).toEqual(here.fields);
      expect(there.affectedRows).toEqual(here.affectedRows);
    }
    const [row] = (await thread.query<unknown[]>(TYPES_SQL, [7, "word", true], { rowMode: "array", parsers })).rows;
    expect(row.slice(0, 4)).toEqual(["timestamp:2026-03-29 00:30:15.25", 'jsonb:{"x": [1, 2]}', 9007199254740993n, "bytea:\\x0102"]);
    expect(row[9]).toBeInstanceOf(Date);
  });

  it("runs statements off the calling thread: its timers keep firing during a long statement", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const started = performance.now();
    await thread.query("SELECT pg_sleep(0.4)");
    clearInterval(timer);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    // On the calling thread the statement would hold the event loop: no tick until it ends.
    expect(ticks).toBeGreaterThanOrEqual(10);
  });

  it("throws PGlite's DatabaseError, with its code and detail, and the Prisma adapter maps it", async () => {
    await thread.exec("CREATE TABLE unique_names (name text PRIMARY KEY)");
    await thread.query("INSERT INTO unique_names VALUES ($1)", ["a"]);
    const error = await thread.query("INSERT INTO unique_names VALUES ($1)", ["a"]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(messages.DatabaseError);
    expect(error).toMatchObject({ code: "23505", severity: "ERROR", detail: "Key (name)=(a) already exists.", query: "INSERT INTO unique_names VALUES ($1)", params: ["a"] });

    const prisma = new PrismaClient({ adapter: prismaAdapter(thread) });
    const viaPrisma = await prisma.$executeRawUnsafe("INSERT INTO unique_names VALUES ($1)", "a").catch((caught: unknown) => caught);
    expect(viaPrisma).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
    expect((viaPrisma as Prisma.PrismaClientKnownRequestError).code).toBe("P2010");
    expect(String((viaPrisma as Error).message)).toContain("23505");
    await prisma.$disconnect();
  });

  it("commits a transaction, rolls one back when its callback throws or calls rollback, and reports an aborted one", async () => {
    await thread.exec("CREATE TABLE entries (n int)");
    await thread.transaction(async (tx) => {
      await tx.query("INSERT INTO entries VALUES (1)");
    });
    await expect(
      thread.transaction(async (tx) => {
        await tx.query("INSERT INTO entries VALUES (2)");
        throw new Error("no");
      }),
    ).rejects.toThrow("no");
    await thread.transaction(async (tx) => {
      await tx.query("INSERT INTO entries VALUES (3)");
      await tx.rollback();
    });
    // A statement fails, the callback carries on: COMMIT then rolls the transaction back, as on PGlite.
    const aborted = await thread
      .transaction(async (tx) => {
        await tx.query("INSERT INTO entries VALUES (4)");
        await tx.query("SELECT 1/0").catch(() => undefined);
      })
      .catch((caught: unknown) => caught);
    expect(aborted).toBeInstanceOf(TransactionAbortedError);
    expect((await thread.query<{ n: number }>("SELECT n FROM entries ORDER BY n")).rows).toEqual([{ n: 1 }]);
  });

  it("holds other statements back while a transaction is open, as PGlite does", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const open = new Promise<void>((resolve) => (entered = resolve));
    const transaction = thread.transaction(async (tx) => {
      await tx.query("CREATE TEMP TABLE held_here (n int)");
      entered();
      await held;
    });
    await open;
    let answered = false;
    const outside = thread.query<{ inside: boolean }>("SELECT txid_current_if_assigned() IS NOT NULL AS inside").then((result) => {
      answered = true;
      return result.rows[0];
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    release();
    await transaction;
    expect(await outside).toEqual({ inside: false });
  });

  it("sends a statement without waiting for the answers to those before it: the thread runs it while the caller is busy", async () => {
    const started = Date.now();
    const sleeping = thread.query("SELECT pg_sleep(0.3)");
    const after = thread.query<{ at: Date }>("SELECT clock_timestamp() AS at");
    // The calling thread is busy (as a server is with other requests) for 1 s: it cannot read the first answer before
    // then, so a statement sent only after that answer could not start before 1 s.
    while (Date.now() - started < 1000) {
      // busy
    }
    await sleeping;
    const ranAt = (await after).rows[0].at.getTime() - started;
    expect(ranAt).toBeGreaterThanOrEqual(290); // after the statement before it: one at a time, in order
    expect(ranAt).toBeLessThan(900);
  });

  it("runs the statements sent outside a transaction in the order they were sent, and before a transaction begun later", async () => {
    await thread.exec("CREATE TABLE sent_order (seq serial PRIMARY KEY, n int)");
    const inserts = Array.from({ length: 40 }, (_, n) => thread.query("INSERT INTO sent_order (n) VALUES ($1)", [n]));
    const seen = thread.transaction(async (tx) => (await tx.query<{ count: number }>("SELECT count(*)::int AS count FROM sent_order")).rows[0].count);
    await Promise.all(inserts);
    expect(await seen).toBe(40);
    const rows = (await thread.query<{ n: number }>("SELECT n FROM sent_order ORDER BY seq")).rows;
    expect(rows.map((row) => row.n)).toEqual(Array.from({ length: 40 }, (_, n) => n));
  });

  it("refuses a parameter that cannot be copied to its thread, and goes on answering", async () => {
    await expect(thread.query("SELECT $1::text AS s", [() => "a function"])).rejects.toThrow(/could not be cloned/);
    expect((await thread.query("SELECT $1::text AS s", ["after"])).rows).toEqual([{ s: "after" }]);
  });

  it("does not keep the process alive while idle, after an answer or a refusal", () => {
    const moduleUrl = new URL("./pglite-thread.ts", import.meta.url).href;
    const script = `const { PGliteThread } = await import(${JSON.stringify(moduleUrl)});
      const db = new PGliteThread();
      await db.query("SELECT $1::text", [() => "refused"]).catch(() => {});
      console.log(JSON.stringify((await db.query("SELECT 1 AS n")).rows));`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 45_000 });
    expect(child.error).toBeUndefined();
    expect(child.stdout.trim()).toBe('[{"n":1}]');
    expect(child.status).toBe(0);
  }, 60_000);

  it("keeps its data in the data folder, and refuses statements once closed", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-thread-db-"));
    try {
      const first = new PGliteThread(dir);
      await first.exec("CREATE TABLE kept (word text); INSERT INTO kept VALUES ('still here')");
      await first.close();
      await expect(first.query("SELECT 1")).rejects.toThrow("the database is closed");
      const second = new PGliteThread(dir);
      expect((await second.query("SELECT word FROM kept")).rows).toEqual([{ word: "still here" }]);
      await second.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a statement that waited for the close, rather than sending it to the closed database", async () => {
    const closing = new PGliteThread();
    await closing.query("SELECT 1");
    const closed = closing.close();
    const late = closing.query("SELECT 1").catch((caught: unknown) => caught);
    await closed;
    expect(await late).toMatchObject({ message: "the database is closed" });
  });

  it("answers every statement with an error when the database cannot open", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-thread-db-")), "a-file");
    fs.writeFileSync(file, "not a data folder");
    const broken = new PGliteThread(file);
    try {
      await expect(broken.query("SELECT 1")).rejects.toThrow();
      await expect(broken.query("SELECT 1")).rejects.toThrow();
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});
