/**
 * MCP endpoints of a project (POST /v1/mcp/endpoints and its reads, refresh and unregister). Registering connects,
 * lists the server's tools and registers each as a catalog version with `transport: "mcp"`; a refresh connects
 * afresh, adds a version for each changed tool and unregisters the tools the server no longer lists.
 *
 * Versions: the server's version when it is semver (else `1.0.0`); when that version exists already for the tool,
 * the next patch after the highest one registered. Header values may name stored secrets, resolved per connection.
 */
import semver from "semver";
import { decodeCursor, toPage, type Page } from "@/lib/pagination";
import { getDb } from "@/lib/db";
import { AppError, notFound, type Issue } from "@/lib/errors";
import { isUuid } from "@/lib/ids";
import { projectFilter, requireWrite, resolveWritableProject, type Actor } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";
import { registerCatalogVersion, setCatalogVersionStatus } from "@/lib/services/catalog";
import { resolveSecretValue } from "@/lib/services/secrets";
import { checkMcpUrl, dropConnection, dropEndpointConnections, errorMessage, McpConnectError, parseEndpoint, poolKey, pooledConnection, stdioAllowed, type McpConnection, type McpConnectionConfig } from "@/lib/tools/mcp/connection";
import { discoveredTool, listAllTools } from "@/lib/tools/mcp/discovery";
import { validateToolManifest } from "@/lib/tools/validate-manifest";
import { bumpGeneration } from "@/lib/services/tenant-generation";

/** A stored header: a literal value or the name of a secret. */
type StoredHeader = { value: string } | { secret: string };
/** A tool the last refresh registered. */
type EndpointTool = { toolId: string; version: string; name: string; hash: string };

export type McpEndpointView = {
  id: string;
  projectId: string;
  name: string;
  endpoint: string;
  transport: "stdio" | "http" | "sse";
  /** Header names with the secret each one names; literal values are never shown. */
  headers: Record<string, { secret: string } | { value: "[set]" }>;
  status: "connected" | "error" | "unregistered";
  lastError: string | null;
  serverName: string | null;
  serverVersion: string | null;
  toolCount: number;
  tools: { toolId: string; version: string; name: string }[];
  /** Tools the server lists that could not be registered, with why. */
  skipped?: { name: string; issues: Issue[] }[];
  lastRefreshAt: string | null;
  createdAt: string;
  updatedAt: string;
};

type EndpointRow = {
  id: string; tenantId: string; projectId: string; name: string; endpoint: string; headers: unknown; status: string; lastError: string | null;
  serverName: string | null; serverVersion: string | null; tools: unknown; lastRefreshAt: Date | null; unregisteredAt: Date | null; createdAt: Date; updatedAt: Date;
};

const storedHeaders = (row: Pick<EndpointRow, "headers">) => (row.headers ?? {}) as Record<string, StoredHeader>;
const storedTools = (row: Pick<EndpointRow, "tools">) => (Array.isArray(row.tools) ? row.tools : []) as EndpointTool[];

function view(row: EndpointRow, skipped?: { name: string; issues: Issue[] }[]): McpEndpointView {
  const tools = storedTools(row);
  const parsed = parseEndpoint(row.endpoint);
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    endpoint: row.endpoint,
    transport: parsed.transport,
    headers: Object.fromEntries(Object.entries(storedHeaders(row)).map(([name, header]) => [name, "secret" in header ? { secret: header.secret } : { value: "[set]" as const }])),
    status: row.unregisteredAt ? "unregistered" : row.status === "connected" ? "connected" : "error",
    lastError: row.lastError,
    serverName: row.serverName,
    serverVersion: row.serverVersion,
    toolCount: tools.length,
    tools: tools.map(({ toolId, version, name }) => ({ toolId, version, name })),
    ...(skipped && skipped.length ? { skipped } : {}),
    lastRefreshAt: row.lastRefreshAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Refusals of an endpoint before any connection: malformed (400), stdio disabled (403), a refused address (403). */
async function checkEndpoint(endpoint: string): Promise<void> {
  let parsed;
  try {
    parsed = parseEndpoint(endpoint);
  } catch (error) {
    throw new AppError("validation-failed", "the endpoint is malformed", { issues: [{ path: "/endpoint", message: errorMessage(error).replace(/^the endpoint /, "") }] });
  }
  if (parsed.transport === "stdio") {
    if (!stdioAllowed()) throw new AppError("mcp-stdio-disabled", "stdio MCP endpoints start a process on this server's host and are disabled here; set KINDGI_MCP_STDIO=allow on the server to enable them");
    return;
  }
  try {
    await checkMcpUrl(parsed.url);
  } catch (error) {
    if (error instanceof McpConnectError && error.kind === "network-denied") throw new AppError("mcp-endpoint-refused", error.message, { endpoint: `${parsed.url.protocol}//${parsed.url.host}` });
    throw new AppError("mcp-connection-failed", errorMessage(error));
  }
}

async function resolveHeaders(tenantId: string, headers: Record<string, StoredHeader>): Promise<Record<string, string>> {
  const resolved: Record<string, string> = {};
  for (const [name, header] of Object.entries(headers)) resolved[name] = "secret" in header ? await resolveSecretValue(tenantId, header.secret) : header.value;
  return resolved;
}

/**
 * The connection settings of `endpoint` for a run in `projectId`: the headers of the project's registered endpoint
 * of that address (secrets resolved now), or none for an endpoint only a manifest names.
 */
export async function mcpConnectionConfig(tenantId: string, projectId: string, endpoint: string): Promise<McpConnectionConfig> {
  const db = await getDb();
  const row = await db.mcpEndpoint.findFirst({ where: { tenantId, projectId, endpoint, unregisteredAt: null }, orderBy: { createdAt: "asc" }, select: { headers: true } });
  return { endpoint, headers: row ? await resolveHeaders(tenantId, storedHeaders(row)) : {} };
}

/**
 * A fresh connection for a registration or a refresh: every pooled one to the endpoint is dropped (the server may have
 * changed), and this one, made for no tool (a stdio server's policy `none`), is dropped once listed (see connectAndSync).
 */
async function freshConnection(tenantId: string, config: McpConnectionConfig): Promise<McpConnection> {
  const key = poolKey(tenantId, config);
  await dropEndpointConnections(tenantId, config);
  try {
    return await pooledConnection(key, config);
  } catch (error) {
    if (error instanceof McpConnectError && error.kind === "stdio-disabled") throw new AppError("mcp-stdio-disabled", error.message);
    if (error instanceof McpConnectError && error.kind === "network-denied") throw new AppError("mcp-endpoint-refused", error.message);
    if (error instanceof McpConnectError && error.kind === "sandbox-unavailable") throw new AppError("sandbox-unavailable", error.message);
    throw new AppError("mcp-connection-failed", errorMessage(error));
  }
}

/** The version a changed or new tool gets: the server's semver (else 1.0.0), or the next patch when taken. */
async function nextVersion(actor: Actor, toolId: string, serverVersion: string | null): Promise<string> {
  const base = (serverVersion && semver.valid(serverVersion)) || "1.0.0";
  const db = await getDb();
  const rows = await db.catalogVersion.findMany({ where: { tenantId: actor.tenantId, kind: "tool", entryId: toolId }, select: { version: true } });
  const versions = rows.map((row) => row.version).filter((version) => semver.valid(version));
  if (versions.length === 0) return base;
  const highest = versions.sort(semver.rcompare)[0];
  return semver.gt(base, highest) ? base : (semver.inc(highest, "patch") as string);
}

async function unregisterToolVersions(actor: Actor, toolId: string): Promise<void> {
  const db = await getDb();
  const rows = await db.catalogVersion.findMany({ where: { tenantId: actor.tenantId, kind: "tool", entryId: toolId, status: "active" }, select: { version: true } });
  for (const row of rows) await setCatalogVersionStatus(actor, "tool", toolId, row.version, "unregistered");
}

/** Lists the server's tools and brings the catalog in line; returns what is registered now and what was skipped. */
async function syncTools(actor: Actor, row: EndpointRow, connection: McpConnection) {
  const listed = (await listAllTools(connection)).map((tool) => discoveredTool(row.name, row.endpoint, connection.server, tool));
  const previous = storedTools(row);
  const tools: EndpointTool[] = [];
  const skipped: { name: string; issues: Issue[] }[] = [];
  for (const discovered of listed) {
    if (tools.some((tool) => tool.toolId === discovered.toolId)) {
      skipped.push({ name: discovered.name, issues: [{ path: "/id", message: `another tool of this server normalises to the id ${discovered.toolId}` }] });
      continue;
    }
    const known = previous.find((tool) => tool.toolId === discovered.toolId);
    if (known && known.hash === discovered.hash) {
      tools.push({ ...known, name: discovered.name });
      continue;
    }
    const version = await nextVersion(actor, discovered.toolId, connection.server.version);
    const manifest = { ...discovered.manifest, version };
    const result = validateToolManifest(manifest);
    if (!result.ok) {
      skipped.push({ name: discovered.name, issues: result.issues });
      continue;
    }
    await registerCatalogVersion(actor, {
      kind: "tool",
      projectId: row.projectId,
      entryId: discovered.toolId,
      version,
      document: JSON.stringify(manifest),
      description: result.manifest.description,
      tags: [],
      mutating: result.manifest.mutating ?? true,
      transport: "mcp",
      effectKinds: [],
    });
    tools.push({ toolId: discovered.toolId, version, name: discovered.name, hash: discovered.hash });
  }
  for (const gone of previous.filter((tool) => !tools.some((current) => current.toolId === tool.toolId))) await unregisterToolVersions(actor, gone.toolId);
  return { tools, skipped };
}

async function connectAndSync(actor: Actor, row: EndpointRow) {
  const db = await getDb();
  let connection: McpConnection;
  let synced: Awaited<ReturnType<typeof syncTools>>;
  try {
    const config = { endpoint: row.endpoint, headers: await resolveHeaders(actor.tenantId, storedHeaders(row)) };
    connection = await freshConnection(actor.tenantId, config);
    try {
      synced = await syncTools(actor, row, connection);
    } finally {
      await dropConnection(poolKey(actor.tenantId, config), connection);
    }
  } catch (error) {
    const message = error instanceof AppError && error.code === "secret-not-found" ? error.message : errorMessage(error);
    await db.mcpEndpoint.update({ where: { id: row.id }, data: { status: "error", lastError: message } });
    if (error instanceof AppError) throw error;
    throw new AppError("mcp-connection-failed", `the MCP server could not be listed: ${message}`);
  }
  const updated = await db.mcpEndpoint.update({
    where: { id: row.id },
    data: { status: "connected", lastError: null, serverName: connection.server.name, serverVersion: connection.server.version, tools: synced.tools, lastRefreshAt: new Date() },
  });
  return view(updated, synced.skipped);
}

export type RegisterMcpEndpointBody = { name: string; endpoint: string; projectId: string; headers?: Record<string, string | { secret: string }> };

/** POST /v1/mcp/endpoints: connects, registers the server's tools, answers with the endpoint's status. */
export async function registerMcpEndpoint(actor: Actor, body: RegisterMcpEndpointBody): Promise<McpEndpointView> {
  requireWrite(actor);
  await checkEndpoint(body.endpoint);
  const headers: Record<string, StoredHeader> = Object.fromEntries(Object.entries(body.headers ?? {}).map(([name, value]) => [name, typeof value === "string" ? { value } : { secret: value.secret }]));
  const db = await getDb();
  const row = await db.$transaction(async (tx) => {
    const projectId = await resolveWritableProject(tx, actor, body.projectId);
    const existing = await tx.mcpEndpoint.findUnique({ where: { tenantId_name: { tenantId: actor.tenantId, name: body.name } } });
    if (existing && (!existing.unregisteredAt || existing.projectId !== projectId))
      throw new AppError("mcp-endpoint-already-registered", `an MCP endpoint named ${JSON.stringify(body.name)} exists in this tenant${existing.projectId !== projectId ? " (in another project)" : ""}`, { name: body.name });
    const data = { endpoint: body.endpoint, headers, status: "error", lastError: "not connected yet", unregisteredAt: null, createdBy: actor.userId };
    const saved = existing
      ? await tx.mcpEndpoint.update({ where: { id: existing.id }, data })
      : await tx.mcpEndpoint.create({ data: { tenantId: actor.tenantId, projectId, name: body.name, ...data } });
    bumpGeneration(tx, actor.tenantId);
    await audit(tx, actor, { action: "mcp-endpoint.registered", subjectType: "mcp-endpoint", subjectId: saved.id, projectId, data: { name: body.name } });
    return saved;
  });
  try {
    return await connectAndSync(actor, row);
  } catch (error) {
    // A server that cannot be reached or listed leaves nothing registered.
    if (!row.lastRefreshAt) await db.mcpEndpoint.update({ where: { id: row.id }, data: { unregisteredAt: new Date() } });
    throw error;
  }
}

async function loadRow(actor: Actor, endpointId: string): Promise<EndpointRow> {
  if (!isUuid(endpointId)) throw new AppError("bad-input", "endpointId must be a UUID", { issues: [{ path: "/endpointId", message: "must be a UUID" }] });
  const db = await getDb();
  const row = await db.mcpEndpoint.findFirst({ where: { id: endpointId.toLowerCase(), tenantId: actor.tenantId, ...projectFilter(actor) } });
  if (!row) throw notFound("MCP endpoint", endpointId);
  return row;
}

export async function getMcpEndpoint(actor: Actor, endpointId: string): Promise<McpEndpointView> {
  return view(await loadRow(actor, endpointId));
}

/** Endpoints newest first; unregistered ones are left out. */
export async function listMcpEndpoints(actor: Actor, page: { limit: number; cursor?: string; projectId?: string }): Promise<Page<McpEndpointView>> {
  const db = await getDb();
  const after = decodeCursor(page.cursor);
  const [createdAt, id] = after ?? [];
  if (after && (typeof createdAt !== "string" || typeof id !== "string")) throw new AppError("bad-input", "cursor is not one this API returned", { issues: [{ path: "/cursor", message: "malformed cursor" }] });
  const rows = await db.mcpEndpoint.findMany({
    where: {
      tenantId: actor.tenantId,
      unregisteredAt: null,
      ...projectFilter(actor, page.projectId?.toLowerCase()),
      ...(after ? { OR: [{ createdAt: { lt: new Date(createdAt as string) } }, { createdAt: new Date(createdAt as string), id: { lt: id as string } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.limit + 1,
  });
  return toPage(rows, page.limit, (row) => [row.createdAt.toISOString(), row.id], (row) => view(row));
}

/** POST …/{endpointId}/refresh: connects afresh and lists again (a call in flight on the old connection is cut). */
export async function refreshMcpEndpoint(actor: Actor, endpointId: string): Promise<McpEndpointView> {
  requireWrite(actor);
  const row = await loadRow(actor, endpointId);
  if (row.unregisteredAt) throw notFound("MCP endpoint", endpointId);
  return connectAndSync(actor, row);
}

/** POST …/{endpointId}/unregister: unregisters its tools, closes its connection, hides it from the list. */
export async function unregisterMcpEndpoint(actor: Actor, endpointId: string): Promise<McpEndpointView> {
  requireWrite(actor);
  const row = await loadRow(actor, endpointId);
  if (row.unregisteredAt) return view(row);
  for (const tool of storedTools(row)) await unregisterToolVersions(actor, tool.toolId);
  const db = await getDb();
  const updated = await db.$transaction(async (tx) => {
    const saved = await tx.mcpEndpoint.update({ where: { id: row.id }, data: { unregisteredAt: new Date() } });
    bumpGeneration(tx, actor.tenantId);
    await audit(tx, actor, { action: "mcp-endpoint.unregistered", subjectType: "mcp-endpoint", subjectId: row.id, projectId: row.projectId });
    return saved;
  });
  try {
    const headers = await resolveHeaders(actor.tenantId, storedHeaders(row));
    await dropEndpointConnections(actor.tenantId, { endpoint: row.endpoint, headers });
  } catch {
    // A secret deleted since: its connection, if any, closes with the process.
  }
  return view(updated);
}
