import { RawJson } from "@/lib/json";
import type { Page } from "@/lib/pagination";
import { getDb } from "@/lib/db";
import { AppError, type Issue } from "@/lib/errors";
import { describeParameterForm, type ParameterForm } from "@/lib/agents/form";
import { renderPreview } from "@/lib/agents/parameters";
import { validateAgentDefinition, type AgentDefinition, type ToolRef } from "@/lib/agents/validate-agent";
import { capabilityWarnings, isRouted, routeCapability, routeEmbedding, type EmbeddingRouteResult, type RouteResult } from "@/lib/models/router";
import { type Actor, resolveWritableProject } from "@/lib/services/actor";
import { type ReferenceResolution, resolveAgentTools, resolveReferences, type ToolResolution, uninvocableToolWarnings, unresolvedWarnings } from "@/lib/services/agent-resolution";
import { providersForProject } from "@/lib/services/model-providers";
import { type CatalogFilters, type CatalogListRow, type CatalogVersionRow, getCatalogEntry, getCatalogVersion, listCatalog, listCatalogVersions, catalogVersionSummary, refuseInvalidDocument, registerCatalogVersion, requireSemverVersion, setAgentExpiryChoice, setCatalogVersionStatus } from "@/lib/services/catalog";
import { expiredApprovalAction } from "@/lib/kernel/approval-policy";

export type AgentVersionView = {
  agentId: string;
  version: string;
  projectId: string;
  status: string;
  isLatest: boolean;
  registeredAt: string;
  registeredBy: string;
  statusChangedAt: string | null;
  /** The definition exactly as registered (without projectId). */
  definition: RawJson;
};

export type AgentSummary = {
  agentId: string;
  projectId: string;
  latestVersion: string;
  name: string;
  description: string;
  tags: string[];
  registeredAt: string;
};

const agentVersionView = (row: CatalogVersionRow): AgentVersionView => ({
  agentId: row.entryId,
  version: row.version,
  projectId: row.projectId,
  status: row.status,
  isLatest: row.isLatest,
  registeredAt: row.registeredAt.toISOString(),
  registeredBy: row.registeredBy,
  statusChangedAt: row.statusChangedAt?.toISOString() ?? null,
  definition: new RawJson(row.document),
});

const summary = (row: CatalogListRow): AgentSummary => ({
  agentId: row.entryId,
  projectId: row.projectId,
  latestVersion: row.version,
  name: row.name ?? row.entryId,
  description: row.description ?? "",
  tags: row.tags,
  registeredAt: row.registeredAt.toISOString(),
});



const definitionOf = (row: CatalogVersionRow): AgentDefinition => JSON.parse(row.document) as AgentDefinition;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The routing verdict as an issue (or warning) at the `llm-inference` capability entry no provider serves, or none when the turn's model can be routed. */
function routingIssues(routing: RouteResult): Issue[] {
  return isRouted(routing) ? [] : [{ path: `/capabilities/${routing.capability}`, message: routing.message }];
}

/** At registration, the routing verdicts are warnings: the model's (`routingIssues`) and each other capability entry's no provider serves. */
async function routingWarnings(agent: AgentDefinition, tenantId: string, projectId: string): Promise<Issue[]> {
  const providers = await providersForProject(tenantId, projectId);
  return [...routingIssues(routeCapability(agent, providers)), ...capabilityWarnings(agent, providers)];
}

/**
 * Registers an agent version (POST /v1/agents): validates the definition against Agent 1.3.0 and the rules
 * beyond it, stores it exactly as sent (without `projectId`), and answers with the validation warnings plus one
 * warning per tool range that resolves to nothing today, one per range that resolves to a tool this server cannot
 * invoke, one when no configured provider can serve its model, and one per capability entry of another kind (e.g.
 * `embedding`) that no provider serves.
 */
export async function registerAgent(actor: Actor, body: Record<string, unknown>): Promise<{ agentId: string; version: string; warnings: Issue[] }> {
  const { projectId, ...definition } = body;
  const result = validateAgentDefinition(definition);
  if (!result.ok) return refuseInvalidDocument(actor, projectId, "the agent definition", result.issues, { warnings: result.warnings });
  const agent = result.definition;
  const row = await registerCatalogVersion(actor, {
    kind: "agent",
    projectId,
    entryId: agent.id,
    version: agent.version,
    document: JSON.stringify(definition),
    name: agent.name,
    description: agent.description,
    tags: agent.tags ?? [],
  });
  const scope = { tenantId: actor.tenantId, projectId: row.projectId };
  const references = await resolveReferences(scope, agent.tools);
  const warnings = [...result.warnings, ...unresolvedWarnings(references), ...(await uninvocableToolWarnings(scope, references)), ...(await routingWarnings(agent, actor.tenantId, row.projectId))];
  return { agentId: row.entryId, version: row.version, warnings };
}

/** Agents the actor can see (latest active version of each), ordered by id; `q` searches id, name, description and tags. */
export async function listAgents(actor: Actor, filters: Pick<CatalogFilters, "projectId" | "q" | "tag">, page: { limit: number; cursor?: string }): Promise<Page<AgentSummary>> {
  const result = await listCatalog(actor, "agent", filters, page);
  return { ...result, data: result.data.map(summary) };
}

/** An agent: its latest active version (null when every version is unregistered) and all its versions, newest first. */
export async function getAgent(actor: Actor, agentId: string) {
  const { entry, latest, versions } = await getCatalogEntry(actor, "agent", agentId);
  return {
    agentId: entry.entryId,
    projectId: entry.projectId,
    latestVersion: entry.latestVersion,
    latest: latest ? agentVersionView(latest) : null,
    versions: versions.map(catalogVersionSummary),
    createdAt: entry.createdAt.toISOString(),
    ...expiryChoiceView(entry.onApprovalExpired),
  };
}

function expiryChoiceView(choice: string | null) {
  const own = choice === "reject" || choice === "fail" ? choice : null;
  return { onApprovalExpired: own, effectiveOnApprovalExpired: expiredApprovalAction(own) };
}

/**
 * PATCH /v1/agents/{agentId}: the agent's settings that live outside its versioned definition. Today one:
 * `onApprovalExpired` — what an expired approval of its calls does (`reject`: back to the model as a rejection with
 * reason `expired`; `fail`: the turn fails; null: the deployment's default). Applies to approvals asked from now on.
 */
export async function updateAgentSettings(actor: Actor, agentId: string, body: { onApprovalExpired: "reject" | "fail" | null }) {
  await setAgentExpiryChoice(actor, agentId, body.onApprovalExpired);
  return getAgent(actor, agentId);
}

/** An agent's versions newest first (by semver); the cursor is the last version shown. */
export async function listAgentVersions(actor: Actor, agentId: string, page: { limit: number; cursor?: string }) {
  return listCatalogVersions(actor, "agent", agentId, page);
}

/** One version with its definition exactly as registered (unregistered versions stay readable). */
export async function getAgentVersion(actor: Actor, agentId: string, version: string): Promise<AgentVersionView> {
  return agentVersionView(await getCatalogVersion(actor, "agent", agentId, requireSemverVersion(version)));
}

/** Unregisters (hides) or reinstates a version; doing it twice answers the same state. */
export async function setAgentVersionStatus(actor: Actor, agentId: string, version: string, status: "active" | "unregistered"): Promise<AgentVersionView> {
  return agentVersionView(await setCatalogVersionStatus(actor, "agent", agentId, requireSemverVersion(version), status));
}

/** What each tool range of a version would resolve to now, in the agent's project (GET …/resolution). */
export async function getAgentVersionResolution(actor: Actor, agentId: string, version: string): Promise<{ agentId: string; version: string; projectId: string } & ToolResolution> {
  const row = await getCatalogVersion(actor, "agent", agentId, requireSemverVersion(version));
  const resolution = await resolveAgentTools({ tenantId: actor.tenantId, projectId: row.projectId }, definitionOf(row));
  return { agentId: row.entryId, version: row.version, projectId: row.projectId, ...resolution };
}

/**
 * Renders a version's instructions with the given parameters (defaults applied) for the editor's preview — the
 * same `renderPreview` the kernel uses. Parameter and template problems are 400 validation-failed with
 * `details.issues` at `/parameters/<name>` or `/instructions`.
 */
export async function renderAgentVersion(actor: Actor, agentId: string, version: string, body: { parameters?: unknown; conversation?: { id?: string | null; turn?: number } }) {
  const row = await getCatalogVersion(actor, "agent", agentId, requireSemverVersion(version));
  const preview = renderPreview(definitionOf(row), body.parameters, { conversation: { id: body.conversation?.id ?? null, turn: body.conversation?.turn ?? 1 } });
  if (!preview.ok)
    throw new AppError("validation-failed", `cannot render: ${preview.issues.length} problem(s), first: ${preview.issues[0].path} ${preview.issues[0].message}`, { issues: preview.issues });
  return { rendered: preview.rendered, parameters: preview.parameters };
}

/** The configuration form a version's parameters describe (GET …/form). */
export async function getAgentVersionForm(actor: Actor, agentId: string, version: string): Promise<ParameterForm> {
  return describeParameterForm(definitionOf(await getCatalogVersion(actor, "agent", agentId, requireSemverVersion(version))));
}

/** The tool references of a possibly malformed definition that can be resolved: `{id, version}` strings with their index. */
function wellFormedReferences(tools: unknown): { refs: ToolRef[]; indexes: number[] } {
  const refs: ToolRef[] = [];
  const indexes: number[] = [];
  (Array.isArray(tools) ? tools : []).forEach((ref, index) => {
    if (isRecord(ref) && typeof ref.id === "string" && ref.id.trim() && typeof ref.version === "string" && ref.version.trim()) {
      refs.push({ id: ref.id, version: ref.version });
      indexes.push(index);
    }
  });
  return { refs, indexes };
}

/** The project a dry run resolves tools in: the given one (checked like registration), else the key's, else the tenant's default. */
async function dryRunProject(actor: Actor, projectId: unknown): Promise<string> {
  const db = await getDb();
  if (projectId !== undefined) return resolveWritableProject(db, actor, projectId);
  if (actor.projectId) return actor.projectId;
  const tenant = await db.tenant.findUnique({ where: { id: actor.tenantId }, select: { defaultProjectId: true } });
  if (!tenant?.defaultProjectId) throw new AppError("bad-input", "the tenant has no default project; pass projectId", { issues: [{ path: "/projectId", message: "is required" }] });
  return tenant.defaultProjectId;
}

/** Warnings about registering this id and version in this project: 409s the registration would answer. */
async function registrationWarnings(actor: Actor, definition: Record<string, unknown>, projectId: string): Promise<Issue[]> {
  if (typeof definition.id !== "string" || !definition.id) return [];
  const db = await getDb();
  const entry = await db.catalogEntry.findUnique({ where: { tenantId_kind_entryId: { tenantId: actor.tenantId, kind: "agent", entryId: definition.id } }, select: { id: true, projectId: true } });
  if (!entry) return [];
  if (entry.projectId !== projectId) return [{ path: "/id", message: `agent "${definition.id}" is registered in another project of this tenant; registering it here answers 409 agent-project-mismatch` }];
  if (typeof definition.version !== "string") return [];
  const taken = await db.catalogVersion.findFirst({ where: { entryRowId: entry.id, version: definition.version }, select: { id: true } });
  return taken ? [{ path: "/version", message: `version ${definition.version} of "${definition.id}" is registered already; registering it again answers 409 agent-already-registered` }] : [];
}

export type AgentDryRun = {
  valid: boolean;
  issues: Issue[];
  warnings: Issue[];
  /** Each well-formed tool reference, in order, with what its range resolves to now. */
  resolution: Array<ReferenceResolution & { index: number }>;
  routing: RouteResult;
  /** The embedding model retrieval by meaning would use. */
  embeddingRouting: EmbeddingRouteResult;
};

/**
 * Validates a definition without registering it (POST /v1/agents/validate): every schema and rule problem, the
 * resolution of each tool range in the project (given, else the caller's default; unresolvable ones are
 * warnings), and whether one of the tenant's providers (its own, the environment's, the built-in ones) can serve
 * the agent's model (if none can, an issue at the `llm-inference` entry, e.g. `/capabilities/0`); a capability entry
 * of another kind no provider serves is a warning at its pointer (it fails a turn only if the turn needs it).
 */
export async function validateAgentDraft(actor: Actor, body: Record<string, unknown>): Promise<AgentDryRun> {
  const { projectId: requestedProject, ...definition } = body;
  const projectId = await dryRunProject(actor, requestedProject);
  const result = validateAgentDefinition(definition);
  const { refs, indexes } = wellFormedReferences(definition.tools);
  const references = await resolveReferences({ tenantId: actor.tenantId, projectId }, refs);
  const routable = {
    capabilities: Array.isArray(definition.capabilities) ? (definition.capabilities as AgentDefinition["capabilities"]) : [],
    tools: refs,
    preferredProvider: typeof definition.preferredProvider === "string" ? definition.preferredProvider : undefined,
    preferredModel: typeof definition.preferredModel === "string" ? definition.preferredModel : undefined,
  };
  const providers = await providersForProject(actor.tenantId, projectId);
  const routing = routeCapability(routable, providers);
  const issues = [...(result.ok ? [] : result.issues), ...routingIssues(routing)];
  const warnings = [
    ...result.warnings,
    ...capabilityWarnings(routable, providers),
    ...unresolvedWarnings(references, indexes),
    ...(await uninvocableToolWarnings({ tenantId: actor.tenantId, projectId }, references, indexes)),
    ...(await registrationWarnings(actor, definition, projectId)),
  ];
  return { valid: issues.length === 0, issues, warnings, resolution: references.map((item, i) => ({ index: indexes[i], ...item })), routing, embeddingRouting: routeEmbedding(routable, providers) };
}
