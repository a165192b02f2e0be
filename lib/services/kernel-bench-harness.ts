/**
 * The in-process turn of `npm run bench:kernel` rows (b) and (b50): the same service call `POST /v1/runs` makes (checks,
 * run row, journal, the kernel worker executing the turn with `wait`), without HTTP. It uses the database the
 * environment names (DATABASE_URL, else an embedded KINDGI_DATA_DIR), migrates it, and creates its own tenant and
 * the benchmark agent: dev-echo with the built-in `current-time` tool.
 */
import { databaseConfig } from "@/lib/db/config";
import { runMigrations } from "@/lib/db/migrate.mjs";
import { getDb } from "@/lib/db";
import { authenticateApiKey } from "@/lib/services/authenticate";
import { createTenant } from "@/lib/services/create-tenant";
import { registerAgent } from "@/lib/services/agents";
import { createRun } from "@/lib/services/runs";
import { asOneRequest } from "@/lib/services/tenant-generation";
import { getKernel } from "@/lib/services/kernel";
import { dbKernelStore } from "@/lib/services/kernel-store";
import type { JournalEvent } from "@/lib/kernel/types";

/** One turn as the journal holds it: what the raw-driver floor of the benchmark replays with the same data. */
export type BenchTurnSample = { tenantId: string; projectId: string; createdBy: string; agentId: string; agentVersion: string; userMessage: string; parameters: unknown; origin: unknown; events: JournalEvent[] };

export type BenchHarness = {
  runTurn(userMessage: string): Promise<{ status: string }>;
  /** The last turn's run and journal. */
  sample(): Promise<BenchTurnSample>;
  close(): Promise<void>;
};

export const BENCH_AGENT = {
  id: "bench.clock",
  version: "1.0.0",
  name: "Clock",
  instructions: "You tell the time.",
  capabilities: [{ kind: "llm-inference" }],
  tools: [{ id: "current-time", version: "^1.0.0" }],
  retrieval: [],
  guardrails: [],
  preferredProvider: "dev-echo",
};

export async function createBenchHarness(): Promise<BenchHarness> {
  const config = databaseConfig();
  await runMigrations({ command: "deploy", ...(config.kind === "postgresql" ? { databaseUrl: config.url } : { dataDir: config.dataDir }) });
  const tenant = await createTenant({ name: "bench" });
  const actor = await authenticateApiKey(tenant.apiKey.key);
  await registerAgent(actor, { ...BENCH_AGENT, projectId: tenant.project.id });
  let lastRunId: string | null = null;
  return {
    async runTurn(userMessage) {
      // As the API's route wrapper serves POST /v1/runs: one request, whose cached reads share a check of the caches.
      const result = await asOneRequest(() => createRun(actor, { agent: { id: BENCH_AGENT.id }, input: { userMessage } }));
      if ("id" in result.body) lastRunId = result.body.id;
      return { status: "status" in result.body && typeof result.body.status === "string" ? result.body.status : "unknown" };
    },
    async sample() {
      if (!lastRunId) throw new Error("no turn has run yet");
      const run = await (await getDb()).run.findUniqueOrThrow({ where: { id: lastRunId } });
      return {
        tenantId: run.tenantId,
        projectId: run.projectId,
        createdBy: run.createdBy,
        agentId: run.agentId as string,
        agentVersion: run.agentVersion as string,
        userMessage: run.userMessage ?? "",
        parameters: run.parameters,
        origin: run.origin,
        events: await dbKernelStore.loadEvents(lastRunId),
      };
    },
    async close() {
      getKernel().stop();
      await (await getDb()).$disconnect();
    },
  };
}
