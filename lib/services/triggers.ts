/**
 * What schedules and webhooks share: the agent and project they start runs of, who may set `toolsAllowedUnattended`,
 * the owner a fire or delivery acts for, and the pause / resume / unregister states.
 */
import type { DbTx } from "@/lib/db";
import { AppError, type Issue } from "@/lib/errors";
import { decodeCursor, toPage, type Page } from "@/lib/pagination";
import { checkParameters } from "@/lib/agents/parameters";
import { type Actor, requireTriggerWrite, resolveWritableProject } from "@/lib/services/actor";
import { activeAgentVersion } from "@/lib/services/conversations";

export type TriggerStatus = "active" | "paused" | "unregistered";

/** The agent a trigger runs, resolved at creation in the trigger's project; the caller's right to set its fields checked. */
export async function resolveTriggerAgent(
  tx: DbTx,
  actor: Actor,
  input: { projectId?: string; agent: { id: string; version?: string }; parameters?: Record<string, unknown>; toolsAllowedUnattended?: string[] },
): Promise<{ projectId: string; agentVersion: string; parameters: Record<string, unknown> | null }> {
  const projectId = input.projectId !== undefined ? await resolveWritableProject(tx, actor, input.projectId) : null;
  const scoped: Actor = projectId ? { ...actor, projectId } : actor;
  const agent = await activeAgentVersion(tx, scoped, input.agent.id, input.agent.version);
  requireTriggerWrite(actor, agent.projectId, { setsToolsAllowedUnattended: (input.toolsAllowedUnattended ?? []).length > 0 });
  let parameters: Record<string, unknown> | null = null;
  if (input.parameters !== undefined) {
    const checked = checkParameters(agent.definition.parameters ?? [], input.parameters);
    if (!checked.ok) {
      const issues: Issue[] = checked.issues.map((issue) => ({ ...issue, path: `/input${issue.path}` }));
      throw new AppError("validation-failed", `the parameters do not fit the agent: ${issues.map((i) => `${i.path} ${i.message}`).join("; ")}`, { issues });
    }
    parameters = input.parameters;
  }
  return { projectId: agent.projectId, agentVersion: agent.version, parameters };
}

/**
 * The actor a fire or a delivery starts its run as: the trigger's owner in its tenant, reaching the trigger's project
 * only. The run itself is unattended (its origin is the trigger).
 */
export async function triggerOwnerActor(tx: DbTx, trigger: { id: string; tenantId: string; projectId: string; createdBy: string }, kind: "schedule" | "webhook"): Promise<Actor> {
  const user = await tx.user.findFirst({ where: { id: trigger.createdBy, tenantId: trigger.tenantId }, select: { id: true, role: true, kind: true } });
  if (!user) throw new AppError("permission-denied", `the ${kind}'s owner no longer exists`);
  return { tenantId: trigger.tenantId, userId: user.id, apiKeyId: null, projectId: trigger.projectId, role: user.role as Actor["role"], isService: user.kind === "service", callerId: `${kind}:${trigger.id}` };
}

/** The status a pause, resume or unregister leads to; an unregistered trigger stays so (409 trigger-unregistered). */
export function nextTriggerStatus(current: string, action: "pause" | "resume" | "unregister", what: string, id: string): TriggerStatus {
  if (current === "unregistered") {
    if (action === "unregister") return "unregistered";
    throw new AppError("trigger-unregistered", `${what} ${id} is unregistered`, { id });
  }
  return action === "pause" ? "paused" : action === "resume" ? "active" : "unregistered";
}

/** A run start's failure as a fire or delivery records it (no secret is ever in an AppError message). */
export function failureOf(error: unknown): { code: string; message: string } {
  if (error instanceof AppError) return { code: error.code, message: error.message };
  return { code: "internal-server-error", message: "the run could not be started; the server log has the cause" };
}

/** The `where` of a newest-first page after `cursor` (sort key `[createdAt, id]`). */
export function newestFirstWhere(cursor: string | undefined): { OR?: Array<Record<string, unknown>> } {
  const after = decodeCursor(cursor);
  if (!after) return {};
  const [createdAt, id] = after;
  if (typeof createdAt !== "string" || typeof id !== "string" || Number.isNaN(Date.parse(createdAt))) throw new AppError("bad-input", "cursor is not one this API returned", { issues: [{ path: "/cursor", message: "malformed cursor" }] });
  return { OR: [{ createdAt: { lt: new Date(createdAt) } }, { createdAt: new Date(createdAt), id: { lt: id } }] };
}

/** The page of rows fetched newest first with `take: limit + 1`. */
export const newestFirstPage = <Row extends { createdAt: Date; id: string }, Item>(rows: Row[], limit: number, toItem: (row: Row) => Item): Page<Item> =>
  toPage(rows, limit, (row) => [row.createdAt.toISOString(), row.id], toItem);

/** Runs' statuses by id, for the fire and delivery lists. */
export async function runStatuses(tx: DbTx, tenantId: string, runIds: (string | null)[]): Promise<Map<string, string>> {
  const ids = runIds.filter((id): id is string => Boolean(id));
  if (!ids.length) return new Map();
  const rows = await tx.run.findMany({ where: { tenantId, id: { in: ids } }, select: { id: true, status: true } });
  return new Map(rows.map((row) => [row.id, row.status]));
}
