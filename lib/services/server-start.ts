import { assertConfiguration } from "@/lib/configuration";
import { getDb } from "@/lib/db";
import { databaseConfig } from "@/lib/db/config";
import { startEventBus } from "@/lib/services/event-bus-postgres";
import { bootstrapFirstTenant, type CreatedTenant } from "@/lib/services/create-tenant";
import { purgeExpiredIdempotencyRecords } from "@/lib/services/idempotency";
import { startKernel } from "@/lib/services/kernel";
import { startNotificationDispatcher } from "@/lib/services/notifications";
import { startScheduler } from "@/lib/services/schedules";
import { startApprovalSweeper } from "@/lib/services/approvals";
import { startFactEmbedder } from "@/lib/services/fact-embeddings";
import { startTracing } from "@/lib/services/tracing";
import { sessionSecretProblem } from "@/lib/secrets/session-secret";
import { sandboxAvailability } from "@/lib/tools/sandbox/bwrap";
import { log } from "@/lib/log";

/** How long a start waits for the event bus's listening connection before it goes on without it. */
const BUS_START_WAIT_MS = 5000;

/**
 * Prints the first tenant's credentials once, when this start created them: on stderr, as text for the person who
 * started the server, never in the log on stdout (whose lines carry no secret); the log says that it happened.
 */
export function printBootstrap(created: CreatedTenant, print: (line: string) => void = (line) => void process.stderr.write(`${line}\n`)): void {
  log.info("created the first tenant; what to sign in with is printed once on stderr", { tenantId: created.tenant.id, projectId: created.project.id });
  print("");
  print("Kindgi: created the first tenant. Keep these; they are not shown again:");
  print(`  tenant id:      ${created.tenant.id}`);
  print(`  project id:     ${created.project.id}   (default project)`);
  print(`  admin email:    ${created.admin.email}`);
  if (created.admin.password) print(`  admin password: ${created.admin.password}`);
  if (!process.env.KINDGI_BOOTSTRAP_API_KEY) print(`  API key:        ${created.apiKey.key}`);
  else print("  API key:        the value of KINDGI_BOOTSTRAP_API_KEY");
  print("");
}

/**
 * What the server does before answering: check the configuration (`npm start` did too; this covers a bare
 * `next start`), open the database (migrations already ran in `npm start`), check that console sessions have a
 * key, start the event bus (PostgreSQL: its listening connection), create the first tenant on an empty database (once
 * for all replicas starting together), start the kernel worker (it resumes unfinished runs), the
 * scheduler (a tick missed while no server ran fires once now) and the notification dispatcher, probe whether
 * sandboxes can be made (lib/tools/sandbox/bwrap.ts logs once when not), and schedule housekeeping.
 */
export async function startServer(): Promise<void> {
  assertConfiguration();
  // Traces first, so that every request is traced (nothing is made when the OTEL_* variables do not ask for it).
  log.info(await startTracing());
  // Without a session key (PostgreSQL and neither KINDGI_SESSION_SECRET nor KINDGI_SECRETS_KEY) the API still serves
  // API keys; the console's sign-in says what to set.
  const sessionProblem = sessionSecretProblem();
  if (sessionProblem) log.warn(`console sign-in is off: ${sessionProblem}`);
  // On PostgreSQL the event bus listens before this server answers, so that it hears what other replicas publish from
  // its first request on (it goes on trying to connect in the background if the database is slow to answer).
  await Promise.race([startEventBus(), new Promise((resolve) => setTimeout(resolve, BUS_START_WAIT_MS).unref())]);
  await getDb();
  const created = await bootstrapOnce();
  if (created) printBootstrap(created);
  await startKernel();
  // Triggers and notifications: fire due schedules, send due notifications (both share the work across replicas).
  startScheduler();
  startNotificationDispatcher();
  startApprovalSweeper();
  startFactEmbedder();
  // Whether handlers and stdio MCP servers can be sandboxed: when not, the log says why now, not at the first call.
  void sandboxAvailability();
  const timer = setInterval(() => void purgeExpiredIdempotencyRecords().catch(() => {}), 60 * 60 * 1000);
  timer.unref();
}

/**
 * The first tenant, created by one replica only when several start at once on an empty PostgreSQL database: under the
 * startup lock (lib/db/startup-lock.mjs), which `npm start` holds already (since before the migrations) and releases
 * when told here that the bootstrap is done; a server started without it takes the lock itself.
 */
async function bootstrapOnce(): Promise<CreatedTenant | null> {
  const config = databaseConfig();
  if (config.kind !== "postgresql") return bootstrapFirstTenant();
  if (process.env.KINDGI_STARTUP_LOCK === "held") {
    const created = await bootstrapFirstTenant();
    if (process.send) {
      process.send({ kindgi: "bootstrapped" });
      process.disconnect?.();
    }
    return created;
  }
  const { withStartupLock } = await import("@/lib/db/startup-lock.mjs");
  return withStartupLock(config.url, () => bootstrapFirstTenant(), { onWait: () => log.info("another server is starting on this database; waiting for its first tenant") });
}

/**
 * {@link startServer}, or, when it fails, the message on stderr (and as an error in the log) and exit code 1: a server
 * that cannot start must not stay up with every request failing on the same error.
 */
export async function startServerOrExit(): Promise<void> {
  try {
    await startServer();
  } catch (error) {
    log.error("the server cannot start", { err: error });
    process.stderr.write(`kindgi: the server cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
