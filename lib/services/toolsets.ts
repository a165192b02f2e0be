/**
 * Toolsets ("virtual MCP servers", POST /v1/toolsets and its reads, PATCH and DELETE): a named choice of a project's
 * tools and agents, each by id and npm semver range, served as an MCP server at `/v1/mcp/toolsets/{toolsetId}`
 * ({@link toolsetCatalog}), so a team hands an agent exactly the tools and versions it may use.
 *
 * A range resolves as an agent's tool reference does (lib/services/agent-resolution.ts): to the highest ACTIVE version
 * satisfying it, read when the toolset is shown or called, never stored. Writing a toolset requires every reference
 * it is given to resolve now; one that stops resolving later (its versions unregistered) shows `version: null` and is
 * left out of `tools/list`. An agent of a toolset is a tool whose input is `{message, parameters?, conversationId?}`
 * and whose result is its turn's answer.
 */
import semver from "semver";
import { getDb, type DbTx } from "@/lib/db";
import { AppError, notFound, type Issue } from "@/lib/errors";
import { isUuid } from "@/lib/ids";
import { decodeCursor, encodeCursor, toPage, type Page } from "@/lib/pagination";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import { getBuiltinTool } from "@/lib/tools/native";
import type { AgentDefinition } from "@/lib/agents/validate-agent";
import { toolNameFor } from "@/lib/tools/mcp/names";
import { projectFilter, requireWrite, type Actor } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";
import { activeToolVersions, pickToolVersion } from "@/lib/services/agent-resolution";
import { findConversation, newestFirstAfter } from "@/lib/services/conversations";
import { invokeTool } from "@/lib/services/invoke-tool";
import type { McpCatalog } from "@/lib/services/mcp-catalog";
import type { RunOrigin } from "@/lib/services/run-origin";
import { createRun, type RunView } from "@/lib/services/runs";
import { cached } from "@/lib/services/tenant-generation";
import { resolveToolProject } from "@/lib/services/tools";

/** A reference of a toolset: a tool or agent id and an npm semver range. */
export type ToolsetReference = { id: string; version: string };
/** A reference as it resolves now: the newest active version satisfying the range, or null. */
export type ResolvedReference = { id: string; range: string; version: string | null };

export type ToolsetView = {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  tools: ToolsetReference[];
  agents: ToolsetReference[];
  resolved: { tools: ResolvedReference[]; agents: ResolvedReference[] };
  /** Where the toolset is served as an MCP server. */
  mcpPath: string;
  createdAt: string;
  updatedAt: string;
};

/** At most this many references (tools and agents together) in one toolset. */
export const MAX_TOOLSET_REFERENCES = 200;

export type CreateToolsetBody = { name: string; description?: string | null; projectId?: string; tools: ToolsetReference[]; agents?: ToolsetReference[] };
export type UpdateToolsetBody = { name?: string; description?: string | null; tools?: ToolsetReference[]; agents?: ToolsetReference[] };

type ToolsetRow = { id: string; tenantId: string; projectId: string; name: string; description: string | null; tools: string; agents: string; createdAt: Date; updatedAt: Date };

const referencesOf = (text: string): ToolsetReference[] => {
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? (parsed as ToolsetReference[]) : [];
};

export const toolsetMcpPath = (toolsetId: string) => `/v1/mcp/toolsets/${toolsetId}`;

// ---------------------------------------------------------------------------------------------------------------------
// Resolution

type Scope = { tenantId: string; projectId: string };

/** The active versions of each agent id of the scope's project, highest first (an id with none maps to []). */
async function activeAgentVersions(scope: Scope, agentIds: readonly string[], db?: DbTx): Promise<Map<string, string[]>> {
  const byId = new Map<string, string[]>(agentIds.map((id) => [id, []]));
  if (agentIds.length === 0) return byId;
  const client = db ?? (await getDb());
  const rows = await client.catalogVersion.findMany({
    where: { tenantId: scope.tenantId, projectId: scope.projectId, kind: "agent", status: "active", entryId: { in: [...byId.keys()] } },
    select: { entryId: true, version: true },
  });
  for (const row of rows) byId.get(row.entryId)?.push(row.version);
  for (const versions of byId.values()) versions.sort((a, b) => semver.rcompare(a, b, true));
  return byId;
}

type Resolution = { tools: (ResolvedReference & { available: string[] })[]; agents: (ResolvedReference & { available: string[] })[] };

/** What each reference resolves to now, with the active versions that exist. */
async function resolveNow(scope: Scope, tools: readonly ToolsetReference[], agents: readonly ToolsetReference[], db?: DbTx): Promise<Resolution> {
  const [toolVersions, agentVersions] = await Promise.all([
    activeToolVersions(scope, [...new Set(tools.map((ref) => ref.id))], db),
    activeAgentVersions(scope, [...new Set(agents.map((ref) => ref.id))], db),
  ]);
  const resolve = (versions: Map<string, string[]>) => (ref: ToolsetReference) => {
    const available = versions.get(ref.id) ?? [];
    return { id: ref.id, range: ref.version, version: pickToolVersion(ref.version, available), available };
  };
  return { tools: tools.map(resolve(toolVersions)), agents: agents.map(resolve(agentVersions)) };
}

/** As {@link resolveNow}, kept under the tenant's catalog generation (a version registered or unregistered bumps it). */
function resolveCached(scope: Scope, tools: readonly ToolsetReference[], agents: readonly ToolsetReference[]): Promise<Resolution> {
  const key = `toolset:${scope.projectId}:${JSON.stringify([tools.map((ref) => [ref.id, ref.version]), agents.map((ref) => [ref.id, ref.version])])}`;
  return cached(scope.tenantId, key, () => resolveNow(scope, tools, agents), "catalog");
}

const shown = (item: ResolvedReference): ResolvedReference => ({ id: item.id, range: item.range, version: item.version });

function view(row: ToolsetRow, resolution: Resolution): ToolsetView {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    description: row.description,
    tools: referencesOf(row.tools).map(({ id, version }) => ({ id, version })),
    agents: referencesOf(row.agents).map(({ id, version }) => ({ id, version })),
    resolved: { tools: resolution.tools.map(shown), agents: resolution.agents.map(shown) },
    mcpPath: toolsetMcpPath(row.id),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function viewOf(row: ToolsetRow): Promise<ToolsetView> {
  return view(row, await resolveCached({ tenantId: row.tenantId, projectId: row.projectId }, referencesOf(row.tools), referencesOf(row.agents)));
}

// ---------------------------------------------------------------------------------------------------------------------
// Validation

type Kind = "tools" | "agents";

/**
 * The problems of a toolset's references: duplicates, two references listed under the same MCP tool name (a tool
 * and an agent of the same id among them), more than {@link MAX_TOOLSET_REFERENCES}, and — for the lists in
 * `checked` only (a PATCH re-checks the lists it is given) — a reference naming no tool or agent of the project, a
 * malformed range, or a range no active version satisfies.
 */
export async function toolsetIssues(db: DbTx, scope: Scope, references: Record<Kind, readonly ToolsetReference[]>, checked: readonly Kind[]): Promise<Issue[]> {
  const issues: Issue[] = [];
  if (checked.length === 0) return issues;
  const total = references.tools.length + references.agents.length;
  if (total > MAX_TOOLSET_REFERENCES) issues.push({ path: references.agents.length && checked.includes("agents") ? "/agents" : "/tools", message: `a toolset holds at most ${MAX_TOOLSET_REFERENCES} references (tools and agents together); this one has ${total}` });
  const names = new Map<string, string>();
  for (const kind of ["tools", "agents"] as const) {
    const seen = new Map<string, number>();
    references[kind].forEach((ref, index) => {
      const path = `/${kind}/${index}/id`;
      const report = checked.includes(kind);
      const earlier = seen.get(ref.id);
      if (earlier !== undefined) {
        if (report) issues.push({ path, message: `${JSON.stringify(ref.id)} is listed twice (also at /${kind}/${earlier})` });
        return;
      }
      seen.set(ref.id, index);
      const name = toolNameFor(ref.id);
      if (name === null) {
        if (report) issues.push({ path, message: "has no valid MCP tool name (escaped, it is longer than 128 characters)" });
        return;
      }
      const other = names.get(name);
      if (other !== undefined) {
        // Reported at a reference of a list being written (a PATCH may bring a tool whose name an agent kept has).
        const [at, clash] = report ? [path, other] : [`${other}/id`, `/${kind}/${index}`];
        issues.push({ path: at, message: `is served under the MCP tool name ${JSON.stringify(name)}, as ${clash} is; names must be unique in a toolset` });
        return;
      }
      names.set(name, `/${kind}/${index}`);
    });
  }
  const resolution = await resolveNow(scope, checked.includes("tools") ? references.tools : [], checked.includes("agents") ? references.agents : [], db);
  const known = await existingEntries(db, scope, resolution);
  for (const kind of checked) {
    const noun = kind === "tools" ? "tool" : "agent";
    resolution[kind].forEach((item, index) => {
      if (item.available.length === 0) {
        const exists = known[kind].has(item.id);
        issues.push({ path: `/${kind}/${index}/${exists ? "version" : "id"}`, message: exists ? `${noun} ${JSON.stringify(item.id)} has no active version (every version is unregistered)` : `names no ${noun} of the project${kind === "tools" ? " (nor a built-in tool)" : ""}` });
      } else if (semver.validRange(item.range) === null) {
        issues.push({ path: `/${kind}/${index}/version`, message: `${JSON.stringify(item.range)} is not a semver range (e.g. "1.2.3", "^1.2", "~1.2.0", "*")` });
      } else if (item.version === null) {
        issues.push({ path: `/${kind}/${index}/version`, message: `${JSON.stringify(item.range)} matches no active version of ${noun} ${JSON.stringify(item.id)} (active versions: ${item.available.join(", ")})` });
      }
    });
  }
  return issues;
}

/** The ids of references without active versions that name an entry of the project all the same (every version unregistered). */
async function existingEntries(db: DbTx, scope: Scope, resolution: Resolution): Promise<Record<Kind, Set<string>>> {
  const found: Record<Kind, Set<string>> = { tools: new Set(), agents: new Set() };
  for (const kind of ["tools", "agents"] as const) {
    const ids = [...new Set(resolution[kind].filter((item) => item.available.length === 0).map((item) => item.id))];
    if (!ids.length) continue;
    const rows = await db.catalogEntry.findMany({ where: { tenantId: scope.tenantId, projectId: scope.projectId, kind: kind === "tools" ? "tool" : "agent", entryId: { in: ids } }, select: { entryId: true } });
    for (const row of rows) found[kind].add(row.entryId);
  }
  return found;
}

function refuse(issues: Issue[]): never {
  throw new AppError("validation-failed", `the toolset is not valid: ${issues.length} problem(s), first: ${issues[0].path} ${issues[0].message}`, { issues });
}

const nameTaken = (name: string) => new AppError("toolset-name-taken", `a toolset named ${JSON.stringify(name)} exists in this project already`, { name });
const isUniqueViolation = (error: unknown) => (error as { code?: unknown })?.code === "P2002";

const copy = (refs: readonly ToolsetReference[] | undefined): ToolsetReference[] => (refs ?? []).map(({ id, version }) => ({ id, version }));

// ---------------------------------------------------------------------------------------------------------------------
// Use cases

/**
 * POST /v1/toolsets. The project: the key's when it is narrowed, else `projectId`, else the tenant's default project.
 * Every reference must resolve now (else 400 validation-failed with an issue per problem); a name taken in the
 * project is 409 toolset-name-taken.
 */
export async function createToolset(actor: Actor, body: CreateToolsetBody): Promise<ToolsetView> {
  requireWrite(actor);
  const projectId = await resolveToolProject(actor, body.projectId);
  const scope = { tenantId: actor.tenantId, projectId };
  const references = { tools: copy(body.tools), agents: copy(body.agents) };
  const db = await getDb();
  const issues = await toolsetIssues(db, scope, references, ["tools", "agents"]);
  if (issues.length) refuse(issues);
  try {
    const row = await db.$transaction(async (tx) => {
      if (await tx.toolset.findUnique({ where: { projectId_name: { projectId, name: body.name } }, select: { id: true } })) throw nameTaken(body.name);
      const saved = await tx.toolset.create({
        data: { tenantId: actor.tenantId, projectId, name: body.name, description: body.description ?? null, tools: JSON.stringify(references.tools), agents: JSON.stringify(references.agents), createdBy: actor.userId },
      });
      await audit(tx, actor, { action: "toolset.created", subjectType: "toolset", subjectId: saved.id, projectId, data: { name: body.name, tools: references.tools, agents: references.agents } });
      return saved;
    });
    return viewOf(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(body.name);
    throw error;
  }
}

async function loadRow(db: DbTx, actor: Actor, toolsetId: string): Promise<ToolsetRow> {
  if (!isUuid(toolsetId)) throw new AppError("bad-input", "toolsetId must be a UUID", { issues: [{ path: "/toolsetId", message: "must be a UUID" }] });
  const row = await db.toolset.findFirst({ where: { id: toolsetId.toLowerCase(), tenantId: actor.tenantId, ...projectFilter(actor) } });
  if (!row) throw notFound("toolset", toolsetId);
  return row;
}

/** GET /v1/toolsets/{toolsetId}: another tenant's toolset, or one outside a narrowed key's project, is 404. */
export async function getToolset(actor: Actor, toolsetId: string): Promise<ToolsetView> {
  return viewOf(await loadRow(await getDb(), actor, toolsetId));
}

/** GET /v1/toolsets: the toolsets of the caller's projects (or of `projectId`), newest first. */
export async function listToolsets(actor: Actor, page: { limit: number; cursor?: string; projectId?: string }): Promise<Page<ToolsetView>> {
  const db = await getDb();
  const rows = await db.toolset.findMany({
    where: { tenantId: actor.tenantId, ...projectFilter(actor, page.projectId?.toLowerCase()), ...newestFirstAfter(page.cursor) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.limit + 1,
  });
  const listed = toPage(rows, page.limit, (row) => [row.createdAt.toISOString(), row.id], (row) => row);
  return { ...listed, data: await Promise.all(listed.data.map(viewOf)) };
}

/**
 * PATCH /v1/toolsets/{toolsetId}: any of name, description (null clears it), tools, agents. A list given replaces
 * the stored one and must resolve now; a list not given is kept as it is (whether it resolves or not).
 */
export async function updateToolset(actor: Actor, toolsetId: string, body: UpdateToolsetBody): Promise<ToolsetView> {
  requireWrite(actor);
  const db = await getDb();
  const current = await loadRow(db, actor, toolsetId);
  const references = { tools: body.tools ? copy(body.tools) : referencesOf(current.tools), agents: body.agents ? copy(body.agents) : referencesOf(current.agents) };
  const checked: Kind[] = [...(body.tools ? (["tools"] as const) : []), ...(body.agents ? (["agents"] as const) : [])];
  const issues = await toolsetIssues(db, { tenantId: current.tenantId, projectId: current.projectId }, references, checked);
  if (issues.length) refuse(issues);
  const name = body.name ?? current.name;
  try {
    const row = await db.$transaction(async (tx) => {
      if (name !== current.name) {
        const taken = await tx.toolset.findUnique({ where: { projectId_name: { projectId: current.projectId, name } }, select: { id: true } });
        if (taken && taken.id !== current.id) throw nameTaken(name);
      }
      const updated = await tx.toolset.updateMany({
        where: { id: current.id, tenantId: actor.tenantId },
        data: {
          name,
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.tools ? { tools: JSON.stringify(references.tools) } : {}),
          ...(body.agents ? { agents: JSON.stringify(references.agents) } : {}),
          updatedAt: new Date(),
        },
      });
      if (updated.count === 0) throw notFound("toolset", toolsetId);
      const changed = Object.keys(body).filter((field) => (body as Record<string, unknown>)[field] !== undefined);
      await audit(tx, actor, { action: "toolset.updated", subjectType: "toolset", subjectId: current.id, projectId: current.projectId, data: { changed, name, ...(body.tools ? { tools: references.tools } : {}), ...(body.agents ? { agents: references.agents } : {}) } });
      return tx.toolset.findUniqueOrThrow({ where: { id: current.id } });
    });
    return viewOf(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(name);
    throw error;
  }
}

/** DELETE /v1/toolsets/{toolsetId}: gone at once; its MCP server answers 404 from then on. Runs it started stay. */
export async function deleteToolset(actor: Actor, toolsetId: string): Promise<void> {
  requireWrite(actor);
  const db = await getDb();
  const current = await loadRow(db, actor, toolsetId);
  await db.$transaction(async (tx) => {
    const deleted = await tx.toolset.deleteMany({ where: { id: current.id, tenantId: actor.tenantId } });
    if (deleted.count === 0) throw notFound("toolset", toolsetId);
    await audit(tx, actor, { action: "toolset.deleted", subjectType: "toolset", subjectId: current.id, projectId: current.projectId, data: { name: current.name } });
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// The MCP catalog

/** The input of an agent offered as a tool. */
export const AGENT_TOOL_INPUT = {
  type: "object",
  properties: {
    message: { type: "string", minLength: 1, description: "The user's message: the turn's input." },
    parameters: { type: "object", description: "Values of the agent's parameters." },
    conversationId: { type: "string", description: "Continue this conversation (POST /v1/conversations opens one); its agent version must satisfy the toolset's range." },
  },
  required: ["message"],
  additionalProperties: false,
} as const;

/** The result of an agent offered as a tool: the turn's answer (text, or the agent's typed output), its conversation and run. */
function agentToolOutput(definition: AgentDefinition | null) {
  return {
    type: "object",
    properties: {
      answer: definition?.output ? { description: `The turn's answer: the agent's ${definition.output.name ?? "output"} (an object of its output schema).` } : { type: "string", description: "The turn's answer." },
      conversationId: { type: ["string", "null"], description: "The conversation the turn belongs to, when one was given." },
      runId: { type: "string", description: "The turn's run (GET /v1/runs/{runId})." },
    },
    required: ["answer", "conversationId", "runId"],
  };
}

/** An agent version as the manifest of the tool that offers it (never registered, never validated as a tool). */
function agentManifest(agentId: string, version: string, row: { name: string | null; description: string | null; document: string }): ToolManifest {
  let definition: AgentDefinition | null = null;
  try {
    definition = JSON.parse(row.document) as AgentDefinition;
  } catch {
    definition = null;
  }
  const name = row.name ?? definition?.name ?? agentId;
  return {
    id: agentId,
    version,
    description: row.description ?? definition?.description ?? `Agent ${name}: sends it a message and answers with its turn's answer.`,
    input: { ...AGENT_TOOL_INPUT },
    output: agentToolOutput(definition),
    mutating: true,
    metadata: { title: name, kindgiAgent: { id: agentId, version } },
  } as ToolManifest;
}

/** The problems of an agent tool's arguments, at `/arguments/...`. */
export function agentArgumentIssues(args: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  for (const field of Object.keys(args)) if (!(field in AGENT_TOOL_INPUT.properties)) issues.push({ path: `/arguments/${field.replace(/~/g, "~0").replace(/\//g, "~1")}`, message: "is not an input of an agent (message, parameters, conversationId)" });
  if (typeof args.message !== "string" || args.message.length === 0) issues.push({ path: "/arguments/message", message: args.message === undefined ? "is required" : "must be a non-empty string" });
  if (args.parameters !== undefined && (typeof args.parameters !== "object" || args.parameters === null || Array.isArray(args.parameters))) issues.push({ path: "/arguments/parameters", message: "must be an object" });
  if (args.conversationId !== undefined && (typeof args.conversationId !== "string" || !isUuid(args.conversationId))) issues.push({ path: "/arguments/conversationId", message: "must be a conversation id (a UUID)" });
  return issues;
}

type CatalogItem = { kind: "tool" | "agent"; id: string; version: string };

/**
 * The toolset `toolsetId` as an MCP catalog (lib/services/mcp-catalog.ts): its references that resolve now, tools
 * first then agents, in the toolset's order; a tool's entry is its resolved version's manifest, an agent's a made-up
 * manifest (input `{message, parameters?, conversationId?}`, output `{answer, conversationId, runId}`). A call runs
 * exactly the resolved version: a newer version outside the range is never called. Another tenant's toolset, or one
 * outside a narrowed key's project, is 404.
 */
export async function toolsetCatalog(actor: Actor, toolsetId: string): Promise<McpCatalog> {
  const db = await getDb();
  const row = await loadRow(db, actor, toolsetId);
  const scope = { tenantId: row.tenantId, projectId: row.projectId };
  const tools = referencesOf(row.tools);
  const agents = referencesOf(row.agents);
  const resolution = () => resolveCached(scope, tools, agents);
  const items = async (): Promise<CatalogItem[]> => {
    const resolved = await resolution();
    const pick = (kind: "tool" | "agent") => (item: ResolvedReference): CatalogItem[] => (item.version === null ? [] : [{ kind, id: item.id, version: item.version }]);
    return [...resolved.tools.flatMap(pick("tool")), ...resolved.agents.flatMap(pick("agent"))];
  };
  return {
    projectId: row.projectId,
    async list(page) {
      const key = decodeCursor(page.cursor);
      if (key && (key.length !== 1 || !Number.isInteger(key[0]) || (key[0] as number) < 0)) throw new AppError("bad-input", "cursor is not one this list gave", { issues: [{ path: "/cursor", message: "malformed cursor" }] });
      const offset = (key?.[0] as number | undefined) ?? 0;
      const all = await items();
      const slice = all.slice(offset, offset + page.limit);
      const manifests = await manifestsOf(scope, slice);
      const next = offset + page.limit < all.length ? { nextCursor: encodeCursor([offset + page.limit]) } : {};
      return { data: manifests, ...next };
    },
    async start(toolId, args, origin) {
      const resolved = await resolution();
      const tool = resolved.tools.find((item) => item.id === toolId);
      const agent = tool ? undefined : resolved.agents.find((item) => item.id === toolId);
      const item = tool ?? agent;
      if (!item) return null;
      if (item.version === null) {
        throw new AppError("tool-version-unresolvable", `${tool ? "tool" : "agent"} ${JSON.stringify(toolId)} of this toolset has no active version satisfying ${JSON.stringify(item.range)} any more`, { toolId, range: item.range, available: item.available });
      }
      if (tool) return (await invokeTool(actor, toolId, item.version, { projectId: row.projectId, arguments: args, origin })).body;
      return startAgentTurn(actor, { id: toolId, range: item.range, version: item.version }, args, origin);
    },
    outputOf(run: RunView) {
      if (run.kind !== "agent-turn") return run.output;
      return { answer: run.output, conversationId: run.conversationId, runId: run.id };
    },
  };
}

/** The manifests of catalog items: a tool's resolved version (registered or built in), an agent's made-up one. */
async function manifestsOf(scope: Scope, items: readonly CatalogItem[]): Promise<ToolManifest[]> {
  const db = await getDb();
  // A built-in tool's version has no row, unless a registration of its id shadows the built-in versions (see activeToolVersions).
  const rows = items.length
    ? await db.catalogVersion.findMany({
        where: { tenantId: scope.tenantId, projectId: scope.projectId, OR: items.map((item) => ({ kind: item.kind, entryId: item.id, version: item.version })) },
        select: { kind: true, entryId: true, version: true, name: true, description: true, document: true },
      })
    : [];
  return items.flatMap((item) => {
    const row = rows.find((candidate) => candidate.kind === item.kind && candidate.entryId === item.id && candidate.version === item.version);
    if (item.kind === "tool") {
      if (row) return [JSON.parse(row.document) as ToolManifest];
      const builtin = getBuiltinTool(item.id, item.version);
      return builtin ? [builtin] : [];
    }
    return row ? [agentManifest(item.id, item.version, row)] : [];
  });
}

/**
 * Starts one turn of the agent version a toolset resolved, with the call's message, parameters and conversation,
 * without waiting; the run's origin is the MCP call's. A conversation pinned to a version outside the range is refused.
 */
async function startAgentTurn(actor: Actor, agent: { id: string; range: string; version: string }, args: Record<string, unknown>, origin: RunOrigin): Promise<RunView> {
  const issues = agentArgumentIssues(args);
  if (issues.length) throw new AppError("validation-failed", `the arguments do not match the input of agent ${agent.id}: ${issues.map((issue) => `${issue.path} ${issue.message}`).join("; ")}`, { issues });
  const conversationId = args.conversationId as string | undefined;
  let version = agent.version;
  if (conversationId) {
    const conversation = await findConversation(await getDb(), actor, conversationId.toLowerCase());
    if (conversation.agentId === agent.id) {
      if (pickToolVersion(agent.range, [conversation.agentVersion]) === null) {
        throw new AppError("agent-version-mismatch", `conversation ${conversation.id} is pinned to ${agent.id}@${conversation.agentVersion}, outside this toolset's range ${JSON.stringify(agent.range)}`, {
          conversationId: conversation.id,
          pinned: { id: conversation.agentId, version: conversation.agentVersion },
          range: agent.range,
        });
      }
      version = conversation.agentVersion;
    }
  }
  const started = await createRun(
    actor,
    {
      agent: { id: agent.id, version },
      input: { userMessage: args.message as string, ...(args.parameters !== undefined ? { parameters: args.parameters as Record<string, unknown> } : {}), ...(conversationId ? { conversationId: conversationId.toLowerCase() } : {}) },
    },
    origin.kind === "mcp" ? { origin } : undefined,
  );
  if (started.status === 200) throw new AppError("bad-input", "a dry run cannot be started through a toolset");
  return started.body;
}
