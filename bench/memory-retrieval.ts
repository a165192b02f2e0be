/**
 * Memory retrieval benchmark: how long a turn's retrieval takes with 1,000, 10,000 and 100,000 facts in scope, by
 * keyword, by meaning (semantic) and both fused, on PGlite and on PostgreSQL in one run; and how fast the background
 * embedder fills in the vectors of facts stored without one (facts per second).
 *
 * In-process, the services called directly as a turn calls them: `retrieveFacts(scope, {types: ["note"], scope:
 * "same-project", limit: 10, mode}, queryText, {embedding, db})` (lib/services/memory.ts), and `embedPendingFacts()`
 * (lib/services/fact-embeddings.ts) for the backfill. No HTTP, no kernel, no model call.
 *
 * The data: one tenant's default project, its facts of type `note` short sentences made from word lists
 * (deterministic: a seeded generator), each with its `dev-embed` vector (lib/models/providers/dev-embed.ts, 512
 * dimensions), stored with createMany in batches — the rows the embedder would have written. Among the first thousand
 * are 20 planted facts; each of the 20 query texts is a paraphrase of one of them (sharing a few of its words, and
 * some of the generated facts' too). The store grows 1,000 → 10,000 → 100,000 facts (the sizes asked); at each size
 * the three modes are measured in the same rounds, in turn (keyword, semantic, both, rotating which goes first), each
 * call timed on its own, the query texts taken in turn. A query's vector is made once before the clock starts (making
 * it is not retrieval; its cost is printed apart). At each size the semantic top 10 must hold the fact the query
 * paraphrases — every query's below 50,000 facts, the timed calls' from there — (exit 1 otherwise); how often the
 * keyword and fused top 10 hold it is printed too.
 *
 * The backfill: in a second tenant, M facts (default 5,000) stored without a vector, then `embedPendingFacts()` (one
 * pass: claimed batches of 64, embedded with dev-embed, stored) until every one has its vector: facts per second over
 * the whole pass. It runs after the retrieval sizes, so the pass also looks over the first project's (all embedded)
 * facts, as a server's embedder would.
 *
 * Each backend runs in a child process of its own (this script with `--child`: running the migrations twice in one
 * process panics the WASM schema engine), on a fresh database (a PGlite folder in the temp dir, or a new database on
 * the PostgreSQL server at $KINDGI_BENCH_DATABASE_URL / $DATABASE_URL / the local default), dropped at the end. The
 * child prints its progress on stderr and one JSON line on stdout; the parent prints one combined table.
 *
 * Run:
 *   npm run bench:memory                          # both backends, sizes 1000,10000,100000
 *   npm run bench:memory -- --quick               # sizes 1000,10000, 10 samples, a backfill of 1,000
 *   npm run bench:memory -- --backend pg --sizes 1000,50000 --samples 40 --backfill 2000
 * Flags: --backend pglite|pg|both (default both), --sizes (ascending, comma-separated), --samples N (timed calls per
 * mode at every size; default 60 below 10,000 facts, 30 below 50,000, 5 from 50,000, where a semantic call takes
 * seconds), --backfill M (default 5000), --quick, --explain (EXPLAIN ANALYZE of the semantic query at each size, on
 * stderr). Warm-up: 5 calls per mode below 50,000 facts, 1 from there.
 * Output: the table (p50, p99, mean in ms per mode and size; below 100 calls the p99 is the slowest call), the
 * query-embedding cost, the backfill rate, then one JSON line with every figure. Exit code 1 when a retrieval failed
 * or missed its planted fact, or the backfill did not embed every fact.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { backendFlag, benchPgUrl, cleanupOnExit, integerFlag, mean, percentile, textTable, type Backend } from "./common";

const MODES = ["keyword", "semantic", "both"] as const;
type Mode = (typeof MODES)[number];
const LIMIT = 10;
const root = path.resolve(import.meta.dirname, "..");

type Options = { backends: Backend[]; sizes: number[]; samples: number | null; backfill: number; quick: boolean; explain: boolean; child: boolean };

const USAGE = "usage: npm run bench:memory -- [--backend pglite|pg|both] [--sizes 1000,10000,100000] [--samples N] [--backfill M] [--quick] [--explain]";

function parseArgs(argv: string[]): Options {
  const options: Options = { backends: ["pglite", "postgresql"], sizes: [1000, 10000, 100000], samples: null, backfill: 5000, quick: false, explain: false, child: false };
  let sizes: string | undefined;
  let backfill: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--backend") {
      const value = argv[++i];
      options.backends = value === "both" ? ["pglite", "postgresql"] : [backendFlag(value, USAGE)];
    } else if (flag === "--sizes") sizes = argv[++i] ?? "";
    else if (flag === "--samples") options.samples = integerFlag("--samples", argv[++i], 1);
    else if (flag === "--backfill") backfill = argv[++i];
    else if (flag === "--quick") options.quick = true;
    else if (flag === "--explain") options.explain = true;
    else if (flag === "--child") options.child = true;
    else if (flag === "--help" || flag === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${flag}\n${USAGE}`);
  }
  if (options.quick) {
    options.sizes = [1000, 10000];
    options.samples ??= 10;
    options.backfill = 1000;
  }
  if (sizes !== undefined) {
    options.sizes = sizes.split(",").map((size) => integerFlag("--sizes", size.trim(), PLANTED.length * 10));
    if (options.sizes.some((size, i) => i > 0 && size <= options.sizes[i - 1])) throw new Error(`--sizes must be ascending, got ${sizes}`);
  }
  if (backfill !== undefined) options.backfill = integerFlag("--backfill", backfill, 1);
  return options;
}

/** Timed calls per mode at a size (unless --samples says). */
const defaultSamples = (size: number) => (size < 10_000 ? 60 : size < 50_000 ? 30 : 5);

// ---------------------------------------------------------------------------------------------------------------
// The facts: planted ones and their paraphrases, and generated sentences

/** 20 facts each query paraphrases (`query`), with words the generated facts do not use. */
const PLANTED: { fact: string; query: string }[] = [
  { fact: "Priya's favourite tea is a smoky lapsang souchong brewed for exactly four minutes.", query: "How long does Priya brew her lapsang tea?" },
  { fact: "The staging database password rotates every ninety days through the vault scheduler.", query: "When is the staging database password rotated by the vault?" },
  { fact: "Our Hamburg warehouse closes early on Fridays, at two in the afternoon.", query: "What time does the Hamburg warehouse close on a Friday?" },
  { fact: "Kenji is allergic to peanuts and shellfish; avoid both at team dinners.", query: "Which foods is Kenji allergic to at dinners?" },
  { fact: "The quarterly board meeting moved from Zurich to a lakeside hotel in Geneva.", query: "Where is the quarterly board meeting held now, Geneva?" },
  { fact: "Acme wants its invoices sent as PDF attachments to their accounts payable inbox.", query: "How does Acme want invoices sent?" },
  { fact: "Lucia's daughter plays the cello in the youth orchestra on Saturday mornings.", query: "Which instrument does Lucia's daughter play in the orchestra?" },
  { fact: "The mobile app crashes on Android 12 when the camera permission is denied.", query: "Why does the Android app crash after the camera permission?" },
  { fact: "Tomasz prefers aisle seats and vegetarian meals on long-haul flights.", query: "Which seat and meals does Tomasz want on flights?" },
  { fact: "The fiscal year of the Nordic subsidiary ends on the last day of June.", query: "When does the fiscal year of the Nordic subsidiary end?" },
  { fact: "Support tickets tagged urgent must get a first reply within thirty minutes.", query: "How fast must urgent support tickets get a reply?" },
  { fact: "The espresso machine on the third floor needs descaling every month.", query: "How often is the third-floor espresso machine descaled?" },
  { fact: "Amara's passport expires in March, so renew it before the Lagos trip.", query: "When does Amara's passport expire, before Lagos?" },
  { fact: "The podcast advertising budget was cut by fifteen percent this quarter.", query: "How much was the podcast advertising budget cut?" },
  { fact: "Our VPN runs on WireGuard; its configuration lives in the infrastructure repository.", query: "Where is the WireGuard VPN configuration kept?" },
  { fact: "Hiroshi's birthday is the twelfth of November and he loves chocolate cake.", query: "Which cake does Hiroshi like on his November birthday?" },
  { fact: "The Denver parking garage requires a badge after seven in the evening.", query: "Does the Denver parking garage need a badge in the evening?" },
  { fact: "Refunds above five hundred euros need approval from the finance director.", query: "Who approves refunds over five hundred euros?" },
  { fact: "The greenhouse sensors report humidity to the dashboard every ten minutes.", query: "How often do the greenhouse sensors report humidity?" },
  { fact: "Fatima translates the customer newsletter into Arabic and French.", query: "Who translates the newsletter into Arabic?" },
];

const NAMES = "Alice Bruno Carmen Dmitri Elena Farid Greta Hugo Ines Jonas Kofi Lena Marco Nadia Oscar Paula Quentin Rosa Sven Tara Umar Vera Walter Xenia Yusuf Zoe Anton Beatriz Chen Dara Emil Freya Gael Hana Ivan Julia Karim Leila Mateo Nora".split(" ");
const NOUNS = "contract report proposal roadmap budget forecast dashboard release migration audit renewal quote purchase order shipment backlog sprint estimate policy handbook survey campaign webinar onboarding checklist license warranty deployment backup schedule agenda presentation spreadsheet integration pipeline template workshop benchmark prototype inventory catalog pricing discount subscription account profile ticket escalation changelog".split(" ");
const ADJECTIVES = "revised final draft annual monthly weekly urgent delayed signed shared internal external detailed short updated pending approved rejected confidential preliminary regional global legacy new standard custom premium basic quarterly overdue".split(" ");
const VERBS = "reviewed approved updated shipped cancelled requested archived renamed scheduled paused reopened signed migrated audited priced drafted forwarded flagged rescheduled summarized".split(" ");
const CITIES = "Lisbon Madrid Berlin Vienna Prague Warsaw Dublin Oslo Milan Lyon Porto Seville Krakow Munich Antwerp Bristol Leeds Toronto Austin Boston Chicago Seattle Sydney Melbourne Nairobi Accra Santiago Lima Bogota Osaka".split(" ");
const CHANNELS = "email phone chat video calls text messages letters the portal".split(" ");
const TOPICS = "billing renewals outages pricing changes security notices training shipping delays product news contract terms onboarding support cases account reviews".split(" ");
const STATUSES = "on track blocked at risk done in review waiting for legal waiting for budget ahead of plan".split(" ");
const WHEN = ["today", "yesterday", "on Monday", "on Tuesday", "on Wednesday", "on Thursday", "last week", "next week", "at the end of the month", "before the holidays", "after the audit", "in the morning"];
const PROJECTS = "Atlas Beacon Comet Delta Ember Falcon Granite Harbor Iris Juniper Keystone Lantern Meridian Nimbus Orbit Pioneer Quartz Summit Tundra Vector".split(" ");

/** A seeded pseudo-random generator (mulberry32): the same facts on every run. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A short business note, like the facts an agent remembers. */
function sentence(random: () => number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const pair = (list: readonly string[]) => (random() < 0.5 ? pick(list) : `${pick(list)} ${pick(list)}`);
  const number = 100 + Math.floor(random() * 9900);
  switch (Math.floor(random() * 6)) {
    case 0:
      return `${pick(NAMES)} ${pick(VERBS)} the ${pick(ADJECTIVES)} ${pick(NOUNS)} ${pick(WHEN)}.`;
    case 1:
      return `Customer ${pick(NAMES)} in ${pick(CITIES)} prefers ${pick(CHANNELS)} for ${pair(TOPICS)}.`;
    case 2:
      return `The ${pick(NOUNS)} for the ${pick(PROJECTS)} project is ${pair(STATUSES)} ${pick(WHEN)}.`;
    case 3:
      return `${pick(NAMES)} wants ${pick(TOPICS)} updates by ${pick(CHANNELS)} ${pick(WHEN)}.`;
    case 4:
      return `Remember that ${pick(NAMES)} owns the ${pick(ADJECTIVES)} ${pick(NOUNS)} for ${pick(CITIES)}.`;
    default:
      return `Ticket ${number}: the ${pick(NOUNS)} of ${pick(NAMES)} from ${pick(CITIES)} was ${pick(VERBS)} ${pick(WHEN)}.`;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The child: one backend, one database

type ModeFigures = { mode: Mode; samples: number; p50Ms: number; p99Ms: number; meanMs: number; hits: number; checked: number };
type SizeFigures = { facts: number; insertSeconds: number; modes: ModeFigures[]; semanticMisses: string[] };
type ChildResult = {
  backend: Backend;
  sizes: SizeFigures[];
  queryEmbed: { p50Us: number; p99Us: number };
  backfill: { facts: number; seconds: number; factsPerSecond: number; passes: number; embedded: number };
  failures: string[];
};

const log = (line: string) => process.stderr.write(`${line}\n`);

async function runChild(options: Options): Promise<void> {
  const backend = options.backends[0];
  const { cleanups, release } = cleanupOnExit("dropping the benchmark database", () => {});
  // The database the services use (getDb()) is the one the environment names: set it before anything opens it.
  let migrateTarget: { databaseUrl: string } | { dataDir: string };
  if (backend === "postgresql") {
    const pg = (await import("pg")).default;
    const { dropDatabase } = await import("../lib/db/drop-database.mjs");
    const admin = new pg.Client({ connectionString: benchPgUrl() });
    await admin.connect();
    const name = `kindgi_bench_memory_${process.pid}_${Date.now()}`;
    await admin.query(`CREATE DATABASE "${name}"`);
    cleanups.push({ label: "drop the benchmark database", fn: async () => { await dropDatabase(admin, name); await admin.end(); } });
    const url = new URL(benchPgUrl());
    url.pathname = `/${name}`;
    process.env.DATABASE_URL = url.toString();
    migrateTarget = { databaseUrl: url.toString() };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-bench-memory-"));
    cleanups.push({ label: "remove the PGlite data folder", fn: () => fs.rmSync(dir, { recursive: true, force: true }) });
    delete process.env.DATABASE_URL;
    process.env.KINDGI_DATA_DIR = path.join(dir, "pgdata");
    migrateTarget = { dataDir: process.env.KINDGI_DATA_DIR };
  }
  try {
    const result = await measureBackend(backend, options, migrateTarget);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    const { getDb } = await import("../lib/db");
    await (await getDb()).$disconnect().catch(() => {});
    // Dropping the database ends the connections still open (the event bus's listener): their lost-connection
    // messages are expected here, not news.
    const error = console.error;
    console.error = () => {};
    await release();
    console.error = error;
  }
}

async function measureBackend(backend: Backend, options: Options, migrateTarget: { databaseUrl: string } | { dataDir: string }): Promise<ChildResult> {
  const { runMigrations } = await import("../lib/db/migrate.mjs");
  const { getDb } = await import("../lib/db");
  const { createTenant } = await import("../lib/services/create-tenant");
  const { retrieveFacts } = await import("../lib/services/memory");
  const { embedPendingFacts, projectEmbeddingRoute, vectorLiteral } = await import("../lib/services/fact-embeddings");
  const { devEmbedVector, DEV_EMBED_DIMENSIONS } = await import("../lib/models/providers/dev-embed");
  const { Prisma } = await import("../lib/generated/prisma/client");
  const { cosineSql } = await import("../lib/services/fact-embeddings");

  const label = backend === "postgresql" ? "PostgreSQL" : "PGlite";
  const failures: string[] = [];
  await runMigrations({ command: "deploy", ...migrateTarget });
  const db = await getDb();
  const tenant = await createTenant({ name: "bench memory" });
  const scope = { tenantId: tenant.tenant.id, projectId: tenant.project.id, conversationId: null };
  const route = await projectEmbeddingRoute(scope.tenantId, scope.projectId);
  if (route.decision.providerId !== "dev-embed") throw new Error(`the project's embedding model is ${route.decision.providerId}/${route.decision.model}, not dev-embed (unset OPENAI_API_KEY)`);
  const { providerId, model } = route.decision;

  // The queries' vectors, made once; the cost of making one, apart.
  const queries = PLANTED.map((planted) => ({ ...planted, id: "", embedding: { vector: devEmbedVector(planted.query), providerId, model } }));
  const embedMicros: number[] = [];
  for (let round = 0; round < 20; round++) for (const query of queries) devEmbedVector(query.query);
  for (let round = 0; round < 50; round++)
    for (const query of queries) {
      const started = performance.now();
      devEmbedVector(query.query);
      embedMicros.push((performance.now() - started) * 1000);
    }
  embedMicros.sort((a, b) => a - b);

  // Facts and their vectors, inserted in batches; `createdAt` one second apart, oldest first.
  const random = generator(20261207);
  const plantedAt = new Map<number, number>(queries.map((_, index) => [Math.floor(((index + 0.5) * Math.min(1000, options.sizes[0])) / queries.length), index]));
  let stored = 0;
  const epoch = Date.parse("2026-01-01T00:00:00Z");
  const insert = async (target: { tenantId: string; projectId: string; createdBy: string }, count: number, withVectors: boolean, numbering: { next: number }) => {
    const BATCH = 1000;
    for (let done = 0; done < count; done += BATCH) {
      const facts = [];
      for (let i = done; i < Math.min(count, done + BATCH); i++) {
        const position = numbering.next++;
        const planted = target.projectId === scope.projectId ? plantedAt.get(position) : undefined;
        const id = randomUUID();
        if (planted !== undefined) queries[planted].id = id;
        const content = planted !== undefined ? queries[planted].fact : sentence(random);
        facts.push({ id, tenantId: target.tenantId, projectId: target.projectId, type: "note", content, source: "api", createdBy: target.createdBy, createdAt: new Date(epoch + position * 1000) });
      }
      await db.memoryFact.createMany({ data: facts });
      // The vectors as array literals in one text[] parameter, as the embedder stores them.
      if (withVectors)
        await db.$executeRawUnsafe(
          `INSERT INTO "FactEmbedding" ("factId", "tenantId", "projectId", "providerId", model, dimensions, vector)
           SELECT id, $2::uuid, $3::uuid, $4, $5, $6, vector::real[] FROM unnest($1::uuid[], $7::text[]) AS row(id, vector)`,
          facts.map((fact) => fact.id),
          target.tenantId,
          target.projectId,
          providerId,
          model,
          DEV_EMBED_DIMENSIONS,
          facts.map((fact) => vectorLiteral(devEmbedVector(fact.content))),
        );
    }
  };

  const retrieve = (mode: Mode, query: (typeof queries)[number]) =>
    retrieveFacts(scope, { types: ["note"], scope: "same-project", limit: LIMIT, mode }, query.query, { embedding: query.embedding, db });

  const sizes: SizeFigures[] = [];
  const numbering = { next: 0 };
  for (const size of options.sizes) {
    const started = performance.now();
    log(`${label}: storing facts ${stored + 1}–${size} with their vectors…`);
    await insert({ tenantId: scope.tenantId, projectId: scope.projectId, createdBy: tenant.admin.id }, size - stored, true, numbering);
    stored = size;
    // Fresh statistics, as autovacuum would have them after such a load.
    await db.$executeRawUnsafe(`ANALYZE "MemoryFact"`);
    await db.$executeRawUnsafe(`ANALYZE "FactEmbedding"`);
    const insertSeconds = (performance.now() - started) / 1000;
    if (sizes.length === 0) {
      // The vectors as stored are dev-embed's of their facts (as the embedder would have stored them).
      const row = await db.factEmbedding.findFirst({ where: { factId: queries[0].id }, select: { vector: true } });
      const expected = devEmbedVector(queries[0].fact);
      if (!row || row.vector.length !== expected.length || row.vector.some((value, i) => Math.abs(value - expected[i]) > 1e-6))
        throw new Error(`${label}: the stored vector of a planted fact is not dev-embed's of its content`);
    }

    const samples = options.samples ?? defaultSamples(size);
    const warmup = size >= 50_000 ? 1 : 5;
    const rows = MODES.map((mode) => ({ mode, ms: [] as number[], hits: 0, checked: 0 }));
    const semanticChecked = new Set<number>();
    const semanticMisses: string[] = [];
    const check = (row: (typeof rows)[number], queryIndex: number, facts: { id: string }[], skipped: number) => {
      const hit = facts.some((fact) => fact.id === queries[queryIndex].id);
      row.checked++;
      if (hit) row.hits++;
      if (row.mode === "semantic") {
        semanticChecked.add(queryIndex);
        if (!hit) semanticMisses.push(queries[queryIndex].query);
      }
      if (skipped !== 0) failures.push(`${label} ${size} ${row.mode}: ${skipped} facts skipped (no vector)`);
      // Keyword search finds only facts sharing a word with the query (for some queries, only the planted one).
      if (row.mode === "semantic" && facts.length !== LIMIT) failures.push(`${label} ${size} ${row.mode}: ${facts.length} facts found, not ${LIMIT}`);
    };
    log(`${label}: ${size} facts stored in ${insertSeconds.toFixed(1)} s; ${warmup} warm-up and ${samples} timed calls per mode…`);
    for (let i = 0; i < warmup; i++) for (const row of rows) await retrieve(row.mode, queries[(i * 7) % queries.length]);
    const measuring = performance.now();
    for (let i = 0; i < samples; i++) {
      const queryIndex = i % queries.length;
      for (let k = 0; k < rows.length; k++) {
        const row = rows[(i + k) % rows.length];
        const t0 = performance.now();
        const answer = await retrieve(row.mode, queries[queryIndex]);
        row.ms.push(performance.now() - t0);
        check(row, queryIndex, answer.facts, answer.skipped);
      }
    }
    log(`${label}: ${size} facts measured in ${((performance.now() - measuring) / 1000).toFixed(1)} s`);
    // Below 50,000 facts, every query's semantic top 10 is checked at this size, timed or not; above, the timed
    // calls' (a semantic call takes seconds there).
    for (let queryIndex = 0; queryIndex < queries.length && size < 50_000; queryIndex++) {
      if (semanticChecked.has(queryIndex)) continue;
      const answer = await retrieve("semantic", queries[queryIndex]);
      const hit = answer.facts.some((fact) => fact.id === queries[queryIndex].id);
      if (!hit) semanticMisses.push(queries[queryIndex].query);
    }
    if (semanticMisses.length) failures.push(`${label} ${size}: the semantic top ${LIMIT} missed the planted fact of ${[...new Set(semanticMisses)].map((q) => JSON.stringify(q)).join(", ")}`);
    if (options.explain) {
      // The statement similarFacts (lib/services/memory.ts) issues, for the first query.
      const plan = await db.$queryRaw<{ "QUERY PLAN": string }[]>`EXPLAIN (ANALYZE, BUFFERS)
        SELECT f.id, ${cosineSql(Prisma.sql`e.vector`, queries[0].embedding.vector)} AS score
        FROM (SELECT * FROM "MemoryFact" WHERE "tenantId" = ${scope.tenantId}::uuid AND "projectId" = ${scope.projectId}::uuid AND type IN ('note')) AS f
        JOIN "FactEmbedding" e ON e."factId" = f.id AND e."providerId" = ${providerId} AND e.model = ${model} AND e.dimensions = ${DEV_EMBED_DIMENSIONS}
        ORDER BY score DESC, f."createdAt" DESC, f.id DESC LIMIT ${LIMIT}`;
      log(`${label}: EXPLAIN ANALYZE of the semantic query at ${size} facts:\n${plan.map((row) => `  ${row["QUERY PLAN"]}`).join("\n")}`);
    }
    const round = (value: number) => Math.round(value * 1000) / 1000;
    sizes.push({
      facts: size,
      insertSeconds: round(insertSeconds),
      semanticMisses,
      modes: rows.map((row) => {
        const sorted = [...row.ms].sort((a, b) => a - b);
        return { mode: row.mode, samples: sorted.length, p50Ms: round(percentile(sorted, 50)), p99Ms: round(percentile(sorted, 99)), meanMs: round(mean(sorted)), hits: row.hits, checked: row.checked };
      }),
    });
  }

  // The backfill: facts stored without vectors in another tenant, then the embedder's passes until all have one.
  log(`${label}: storing ${options.backfill} facts without vectors, then embedPendingFacts()…`);
  const other = await createTenant({ name: "bench memory backfill" });
  await insert({ tenantId: other.tenant.id, projectId: other.project.id, createdBy: other.admin.id }, options.backfill, false, { next: 0 });
  await db.$executeRawUnsafe(`ANALYZE "MemoryFact"`);
  let embedded = 0;
  let passes = 0;
  const backfillStarted = performance.now();
  while (embedded < options.backfill && passes < 10) {
    const pass = await embedPendingFacts();
    passes++;
    embedded += pass.embedded;
    if (pass.failed) failures.push(`${label} backfill: ${pass.failed} facts failed to embed`);
    if (pass.embedded === 0) break;
  }
  const backfillSeconds = (performance.now() - backfillStarted) / 1000;
  const vectors = await db.factEmbedding.count({ where: { projectId: other.project.id, providerId, model } });
  if (vectors !== options.backfill) failures.push(`${label} backfill: ${vectors} of ${options.backfill} facts have a vector after ${passes} passes`);
  // The embedder's vector is dev-embed's of the content (as the bench's own rows are).
  const sample = await db.factEmbedding.findFirst({ where: { projectId: other.project.id }, select: { vector: true, fact: { select: { content: true } } } });
  const expected = sample ? devEmbedVector(sample.fact.content) : [];
  if (!sample || sample.vector.some((value, i) => Math.abs(value - expected[i]) > 1e-6)) failures.push(`${label} backfill: a stored vector is not dev-embed's of its fact`);
  log(`${label}: backfill of ${options.backfill} facts in ${backfillSeconds.toFixed(2)} s (${passes} pass${passes === 1 ? "" : "es"})`);

  return {
    backend,
    sizes,
    queryEmbed: { p50Us: Math.round(percentile(embedMicros, 50) * 10) / 10, p99Us: Math.round(percentile(embedMicros, 99) * 10) / 10 },
    backfill: { facts: options.backfill, seconds: Math.round(backfillSeconds * 1000) / 1000, factsPerSecond: Math.round(options.backfill / backfillSeconds), passes, embedded },
    failures,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The parent: one child per backend, one table

function runBackend(backend: Backend, options: Options, argv: string[]): Promise<ChildResult> {
  const passed = argv.filter((arg, i) => arg !== "--backend" && argv[i - 1] !== "--backend");
  const env = { ...process.env };
  // dev-embed is the project's embedding model only when no environment provider serves embeddings.
  delete env.OPENAI_API_KEY;
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(root, "node_modules/.bin/tsx"), [path.join(root, "bench/memory-retrieval.ts"), "--child", "--backend", backend === "postgresql" ? "pg" : "pglite", ...passed], { cwd: root, env, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => (out += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const lines = out.split("\n").filter((line) => line.trim() !== "");
      const json = lines.filter((line) => line.startsWith("{")).pop();
      // Anything else a service printed on stdout, kept out of the table.
      for (const line of lines) if (line !== json) process.stderr.write(`${backend}: ${line}\n`);
      if (code !== 0 || !json) return reject(new Error(`the ${backend} run ended with ${signal ?? `exit code ${code}`}${json ? "" : " and no figures"}`));
      resolve(JSON.parse(json) as ChildResult);
    });
  });
}

const fmt = (value: number) => value.toFixed(value < 10 ? 2 : value < 100 ? 1 : 0);

async function runParent(options: Options, argv: string[]): Promise<void> {
  const results: ChildResult[] = [];
  for (const backend of options.backends) results.push(await runBackend(backend, options, argv));
  const name = (backend: Backend) => (backend === "postgresql" ? "PostgreSQL" : "PGlite");

  console.log(`\nRetrieval of the top ${LIMIT} facts of type note in one project (retrieveFacts, same-project), ms per call; "planted" = the fact the query paraphrases in the top ${LIMIT}:`);
  const rows: string[][] = [];
  for (const result of results)
    for (const size of result.sizes)
      for (const mode of size.modes) rows.push([name(result.backend), size.facts.toLocaleString("en-US"), mode.mode, String(mode.samples), fmt(mode.p50Ms), fmt(mode.p99Ms), fmt(mode.meanMs), `${mode.hits}/${mode.checked}`]);
  for (const line of textTable(["backend", "facts", "mode", "calls", "p50", "p99", "mean", "planted"], rows, (i) => i === 1 || (i >= 3 && i <= 7))) console.log(line);

  console.log("\nStoring the facts with their vectors (batches of 1,000: createMany, the vectors in one INSERT; then ANALYZE), s:");
  const insertRows = results.flatMap((result) => result.sizes.map((size, i) => [name(result.backend), `${i === 0 ? 0 : result.sizes[i - 1].facts} → ${size.facts}`, size.insertSeconds.toFixed(1)]));
  for (const line of textTable(["backend", "facts", "seconds"], insertRows, (i) => i === 2)) console.log(line);

  console.log("\nEmbedding backfill (embedPendingFacts with dev-embed, batches of 64):");
  const backfillRows = results.map((result) => [name(result.backend), result.backfill.facts.toLocaleString("en-US"), String(result.backfill.passes), result.backfill.seconds.toFixed(2), result.backfill.factsPerSecond.toLocaleString("en-US")]);
  for (const line of textTable(["backend", "facts", "passes", "seconds", "facts/s"], backfillRows, (i) => i >= 1)) console.log(line);

  const embed = results[0].queryEmbed;
  console.log(`\nMaking a query's vector (devEmbedVector, not timed above): p50 ${embed.p50Us} µs, p99 ${embed.p99Us} µs.`);
  console.log(JSON.stringify({ bench: "memory-retrieval", limit: LIMIT, results }));
  const failures = results.flatMap((result) => result.failures);
  if (failures.length) {
    const shown = [...new Set(failures)];
    console.error(`\nFAILED:\n${shown.slice(0, 20).join("\n")}${shown.length > 20 ? `\n… and ${shown.length - 20} more` : ""}`);
    process.exitCode = 1;
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const options = parseArgs(argv);
  if (options.child) await runChild(options);
  else await runParent(options, argv);
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
