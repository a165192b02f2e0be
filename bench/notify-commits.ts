/**
 * Why a write's cache-generation notification is sent after the write commits, not inside it (see
 * lib/services/tenant-generation.ts): on PostgreSQL, N connections (16) commit one-row INSERTs side by side, three
 * ways, the rows in alternating blocks of one run so that they see the same machine:
 *   1. the INSERT alone;
 *   2. the INSERT with `pg_notify` in the same statement, as writes sent it before: a NOTIFY holds the database's one
 *      notification-queue lock from before its transaction's commit until the commit is flushed, so these commits go
 *      one at a time;
 *   3. the INSERT, then the notification as the server sends it now (`createAnnouncer`: after the commit, on a
 *      connection of its own, a burst of writes told in one notification, at most one every 50 ms).
 * Prints the commits a second, the p50 and p99 of one write (until it has committed; in row 3 the writer does not wait
 * for the notification), each row's rate as a share of row 1's, and how many notifications a listening connection got.
 *
 * Run: npx tsx bench/notify-commits.ts   (PostgreSQL at $DATABASE_URL or the local default; a fresh database is
 * created for the run and dropped at the end)
 * Flags: --writes N per row (6000), --rounds N (6), --connections N (16)
 */
import pg from "pg";
import { performance } from "node:perf_hooks";
import { DEFAULT_PG_URL, percentile, textTable } from "./common";
import { freshPostgresDatabase } from "../tests/helpers/server";
import { ANNOUNCE_INTERVAL_MS, createAnnouncer } from "../lib/services/tenant-generation";

const CHANNEL = "bench_generation";

function parseArgs(argv: string[]) {
  const options = { writes: 6000, rounds: 6, connections: 16 };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, "") as keyof typeof options;
    const value = Number(argv[i + 1]);
    if (!(key in options) || !Number.isInteger(value) || value < 1) throw new Error(`usage: npx tsx bench/notify-commits.ts [--writes N] [--rounds N] [--connections N] (got ${argv[i]} ${argv[i + 1] ?? ""})`);
    options[key] = value;
    i++;
  }
  return options;
}

type Row = { name: string; write: (client: pg.Client, tenant: string) => Promise<void>; latencies: number[]; seconds: number; writes: number };

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const database = await freshPostgresDatabase(process.env.DATABASE_URL || DEFAULT_PG_URL);
  const clients: pg.Client[] = [];
  try {
    const connect = async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      clients.push(client);
      return client;
    };
    const admin = await connect();
    await admin.query(`CREATE TABLE bench_write ("id" bigserial PRIMARY KEY, "tenantId" text NOT NULL, "document" text NOT NULL)`);
    const writers = await Promise.all(Array.from({ length: options.connections }, connect));
    const listener = await connect();
    let received = 0;
    listener.on("notification", () => received++);
    await listener.query(`LISTEN ${CHANNEL}`);
    const notifier = await connect();
    const announcer = createAnnouncer(
      async (payloads) => void (await notifier.query({ name: "announce", text: `SELECT pg_notify('${CHANNEL}', payload) FROM unnest($1::text[]) AS payload`, values: [payloads] })),
      (error) => console.error(`notification failed: ${error}`),
    );
    const document = JSON.stringify({ id: "bench.word", description: "Looks up a word in a benchmark dictionary.", padding: "x".repeat(400) });
    const insert = `INSERT INTO bench_write ("tenantId", "document") VALUES ($1, $2)`;
    const rows: Row[] = [
      { name: "INSERT alone", write: async (client, tenant) => void (await client.query({ name: "plain", text: insert, values: [tenant, document] })), latencies: [], seconds: 0, writes: 0 },
      {
        name: "INSERT with pg_notify in it (before)",
        write: async (client, tenant) => void (await client.query({ name: "notify-inside", text: `WITH written AS (${insert} RETURNING "tenantId") SELECT pg_notify('${CHANNEL}', "tenantId") FROM written`, values: [tenant, document] })),
        latencies: [],
        seconds: 0,
        writes: 0,
      },
      {
        name: "INSERT, then announced after commit (now)",
        write: async (client, tenant) => {
          await client.query({ name: "plain", text: insert, values: [tenant, document] });
          void announcer.announce(tenant);
        },
        latencies: [],
        seconds: 0,
        writes: 0,
      },
    ];
    const notificationsBy = new Map<Row, number>();
    const block = async (row: Row, count: number, measured: boolean) => {
      let next = 0;
      const before = received;
      const started = performance.now();
      await Promise.all(
        writers.map(async (client, w) => {
          while (next < count) {
            next++;
            const t0 = performance.now();
            await row.write(client, `tenant-${w % 4}`);
            if (measured) row.latencies.push(performance.now() - t0);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      // Notifications still on their way arrive within the announce interval (and are not counted in the next block).
      await new Promise((resolve) => setTimeout(resolve, ANNOUNCE_INTERVAL_MS * 4));
      if (!measured) return;
      row.seconds += seconds;
      row.writes += count;
      notificationsBy.set(row, (notificationsBy.get(row) ?? 0) + received - before);
    };
    console.log(`${options.connections} connections, ${options.writes} writes a row in ${options.rounds} rounds; warming up…`);
    for (const row of rows) await block(row, 500, false);
    const perBlock = Math.ceil(options.writes / options.rounds);
    for (let round = 0; round < options.rounds; round++) for (const row of round % 2 ? [...rows].reverse() : rows) await block(row, perBlock, true);
    const base = rows[0].writes / rows[0].seconds;
    const table = rows.map((row) => {
      const sorted = [...row.latencies].sort((a, b) => a - b);
      const rate = row.writes / row.seconds;
      return [row.name, String(row.writes), rate.toFixed(0), `${((100 * rate) / base).toFixed(1)} %`, percentile(sorted, 50).toFixed(2), percentile(sorted, 99).toFixed(2), String(notificationsBy.get(row) ?? 0)];
    });
    console.log("");
    for (const line of textTable(["write", "writes", "commits/s", "vs alone", "p50 ms", "p99 ms", "notifications"], table, (column) => column > 0)) console.log(line);
  } finally {
    await Promise.all(clients.map((client) => client.end().catch(() => {})));
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
