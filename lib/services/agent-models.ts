/**
 * Agents as models, for the OpenAI-compatible routes (DESIGN.md §9): `GET /v1/models` lists a project's agents,
 * and a `model` names one — `<agent id>` (its latest active version) or `<agent id>@<version or semver range>` (the
 * highest active version in the range). The project: the key's when it is narrowed, else the `OpenAI-Project` header
 * (a project id, as the OpenAI SDKs send their `project` option), else the tenant's default.
 */
import semver from "semver";
import { getDb } from "@/lib/db";
import { AppError } from "@/lib/errors";
import type { Actor } from "@/lib/services/actor";
import { resolveToolProject } from "@/lib/services/tools";

/** A model as OpenAI lists it. */
export type AgentModel = { id: string; object: "model"; created: number; owned_by: string };

/** The most agents `GET /v1/models` lists (OpenAI's list has no pages). */
const MAX_MODELS = 1000;

export function openAiProject(actor: Actor, header: string | null): Promise<string> {
  return resolveToolProject(actor, header?.trim() || undefined);
}

/** The project's agents (latest active version of each), by id. */
export async function listAgentModels(actor: Actor, projectId: string): Promise<AgentModel[]> {
  const db = await getDb();
  const rows = await db.catalogVersion.findMany({
    where: { tenantId: actor.tenantId, projectId, kind: "agent", isLatest: true, status: "active" },
    orderBy: { entryId: "asc" },
    take: MAX_MODELS,
    select: { entryId: true, registeredAt: true },
  });
  return rows.map((row) => modelOf(row.entryId, row.registeredAt));
}

const modelOf = (id: string, registeredAt: Date): AgentModel => ({ id, object: "model", created: Math.floor(registeredAt.getTime() / 1000), owned_by: "kindgi" });

/** The agent version a `model` names in the project; 404 `model-not-found` (with `param: model`) when none. */
export async function resolveAgentModel(actor: Actor, projectId: string, model: string): Promise<{ agentId: string; version: string; model: AgentModel }> {
  const db = await getDb();
  const candidates = splitModel(model);
  for (const { agentId, range } of candidates) {
    const versions = await db.catalogVersion.findMany({ where: { tenantId: actor.tenantId, projectId, kind: "agent", entryId: agentId, status: "active" }, select: { version: true, registeredAt: true, isLatest: true } });
    if (versions.length === 0) continue;
    const chosen = range === null ? versions.find((row) => row.isLatest) : versions.find((row) => row.version === semver.maxSatisfying(versions.map((v) => v.version), range));
    if (!chosen) throw notFoundModel(model, `no active version of agent ${JSON.stringify(agentId)} is in ${JSON.stringify(range)}`);
    return { agentId, version: chosen.version, model: modelOf(range === null ? agentId : model, chosen.registeredAt) };
  }
  throw notFoundModel(model, `no agent of this project is ${JSON.stringify(model)}: GET /v1/models lists them`);
}

/** The model as an agent id, and (when it ends in `@<range>`) as an id and a range. */
function splitModel(model: string): { agentId: string; range: string | null }[] {
  const candidates: { agentId: string; range: string | null }[] = [{ agentId: model, range: null }];
  const at = model.lastIndexOf("@");
  if (at > 0 && semver.validRange(model.slice(at + 1))) candidates.push({ agentId: model.slice(0, at), range: model.slice(at + 1) });
  return candidates;
}

const notFoundModel = (model: string, message: string) => new AppError("model-not-found", message, { model, issues: [{ path: "/model", message }] });
