/**
 * A tool invocation: one call of one tool version with given arguments, outside any agent (the catalog's "try it").
 * It is a run like an agent's turn — listed, journaled, streamed, executed by the kernel under a lease, with the
 * same tool path (input validation with defaults, the scheduler, output validation, the wall-clock budget, the
 * call's idempotency key) — whose output is the tool's result. The arguments are checked here first, so invalid
 * ones are a 400 and nothing is stored.
 */
import { randomUUID } from "node:crypto";
import { getDb, type DbTx } from "@/lib/db";
import { AppError, notFound, type Issue } from "@/lib/errors";
import { getValidator, type DataValidation } from "@/lib/tools/json-schema";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import { getBuiltinTool } from "@/lib/tools/native";
import { type Actor, requireWrite, resolveWritableProject } from "@/lib/services/actor";
import { builtinFor } from "@/lib/services/tools";
import { executeNewRun, type RunView } from "@/lib/services/runs";
import { isAttendedOrigin, originOf, type RunOrigin } from "@/lib/services/run-origin";
import { getKernel } from "@/lib/services/kernel";
import { insertRun } from "@/lib/services/kernel-store";
import { DEFAULT_MAX_WALL_MS } from "@/lib/kernel/journal";
import type { InvocationCreatedData } from "@/lib/kernel/types";

export type InvokeToolInput = {
  projectId?: string;
  arguments: Record<string, unknown>;
  options?: { wait?: boolean };
  /** What started the run when it is not the caller directly (a `tools/call` of the MCP server); default originOf(actor). */
  origin?: RunOrigin;
};

/** The tool version an invocation calls, and the project its run lives in. */
type Target = { projectId: string; version: string; manifest: ToolManifest; cacheKey: string };

/** Input validators by catalog row (a registered version never changes) or built-in version. */
const validators = new Map<string, (data: unknown) => DataValidation>();

function inputValidator(target: Target): (data: unknown) => DataValidation {
  let validate = validators.get(target.cacheKey);
  if (!validate) {
    if (validators.size > 1000) validators.clear();
    validate = getValidator(target.manifest.input, target.manifest.transport);
    validators.set(target.cacheKey, validate);
  }
  return validate;
}

/**
 * POST /v1/tools/{toolId}/versions/{version}/invoke (`version` null: POST /v1/tools/{toolId}/invoke, the latest
 * active version). Answers like POST /v1/runs: 201 with the settled run, 202 with the pending one (`wait: false`).
 */
export async function invokeTool(actor: Actor, toolId: string, version: string | null, input: InvokeToolInput): Promise<{ status: 201 | 202; body: RunView }> {
  requireWrite(actor);
  const db = await getDb();
  const kernel = getKernel();
  // Catalog versions never change once registered: reading the target before the write transaction is safe (a
  // version unregistered in between still runs, as a run already started would).
  const target = await findTarget(db, actor, toolId, version, input.projectId);
  const checked = inputValidator(target)(input.arguments);
  if (!checked.ok) {
    const issues: Issue[] = checked.issues.map((issue) => ({ path: `/arguments${issue.path}`, message: issue.message }));
    throw new AppError("validation-failed", `the arguments do not match the input schema of tool ${toolId}@${target.version}: ${issues.slice(0, 10).map((i) => `${i.path} ${i.message}`).join("; ")}`, { issues });
  }
  const args = checked.value as Record<string, unknown>;
  const origin = input.origin ?? originOf(actor);
  // A call the MCP server makes for its client asks for approval as an agent's call does (DESIGN.md §9).
  const asks = origin.kind === "mcp" ? { asksLikeAnAgentCall: true } : {};
  const created: InvocationCreatedData = { invocation: { toolId, version: target.version, arguments: args, ...asks }, attended: isAttendedOrigin(origin) };
  const run = await insertRun({
    id: randomUUID(),
    tenantId: actor.tenantId,
    projectId: target.projectId,
    kind: "tool-invocation",
    toolId,
    toolVersion: target.version,
    arguments: args,
    conversationId: null,
    attended: created.attended,
    origin,
    toolsAllowedUnattended: [],
    createdBy: actor.userId,
    events: [{ type: "run-created", data: created }],
    lease: { owner: kernel.id, ms: kernel.options.leaseMs },
  });
  return executeNewRun(run, { wait: input.options?.wait !== false, wallMs: DEFAULT_MAX_WALL_MS, session: { definition: null, events: [{ seq: 1, type: "run-created", data: created, createdAt: run.createdAt.toISOString() }] } });
}

/**
 * The version to call. A registered tool: the caller must see its project (else 404, as for another tenant's tool);
 * a `projectId` naming another project is 409 tool-project-mismatch; an unregistered version is 409
 * tool-version-unregistered. A built-in tool lives in no project: the run goes to `projectId`, else the key's
 * project, else the tenant's default project.
 */
async function findTarget(db: DbTx, actor: Actor, toolId: string, version: string | null, projectId: string | undefined): Promise<Target> {
  const requested = projectId === undefined ? undefined : await resolveWritableProject(db, actor, projectId);
  const builtin = await builtinFor(actor, toolId);
  if (builtin) {
    const manifest = version === null ? builtin[0] : getBuiltinTool(toolId, version);
    if (!manifest) throw notFound("tool version", `${toolId}@${version}`);
    return { projectId: requested ?? actor.projectId ?? (await defaultProject(db, actor)), version: manifest.version, manifest, cacheKey: `builtin\u0000${toolId}\u0000${manifest.version}` };
  }
  const entry = await db.catalogEntry.findUnique({ where: { tenantId_kind_entryId: { tenantId: actor.tenantId, kind: "tool", entryId: toolId } } });
  if (!entry || (actor.projectId && entry.projectId !== actor.projectId)) throw notFound("tool", toolId);
  if (requested && requested !== entry.projectId) throw new AppError("tool-project-mismatch", `tool ${JSON.stringify(toolId)} is registered in another project of this tenant`, { toolId, projectId: entry.projectId });
  if (version === null && !entry.latestVersion) throw new AppError("tool-version-unregistered", `every version of tool ${JSON.stringify(toolId)} is unregistered; reinstate one or name a version`, { toolId });
  const wanted = version ?? (entry.latestVersion as string);
  const row = await db.catalogVersion.findFirst({ where: { entryRowId: entry.id, version: wanted }, select: { id: true, status: true, document: true } });
  if (!row) throw notFound("tool version", `${toolId}@${wanted}`);
  if (row.status !== "active") throw new AppError("tool-version-unregistered", `tool version ${toolId}@${wanted} is unregistered; reinstate it to invoke it`, { toolId, version: wanted });
  return { projectId: entry.projectId, version: wanted, manifest: JSON.parse(row.document) as ToolManifest, cacheKey: row.id };
}

async function defaultProject(db: DbTx, actor: Actor): Promise<string> {
  const tenant = await db.tenant.findUnique({ where: { id: actor.tenantId }, select: { defaultProjectId: true } });
  if (!tenant?.defaultProjectId) throw new AppError("bad-input", "the tenant has no default project: give projectId", { issues: [{ path: "/projectId", message: "is required" }] });
  return tenant.defaultProjectId;
}
