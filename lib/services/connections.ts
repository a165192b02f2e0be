/**
 * Connections: accounts at other apps a person or the company linked (POST /v1/connections), each with the
 * permissions it was granted and an access token kept sealed with the secrets key (never returned, logged or
 * journaled). A tool's `needsSpec.connections` resolve per call: `as: "person"` is the run's person (the one who
 * started it or owns its trigger), `as: "company"` the tenant's. A missing or under-permitted connection fails the
 * call before anything is sent.
 */
import type { Connection } from "@/lib/generated/prisma/client";
import { getDb } from "@/lib/db";
import { AppError, notFound } from "@/lib/errors";
import { type Page } from "@/lib/pagination";
import { type Actor, connectionFilter, requireConnectionWrite } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";
import { openValue, sealValue } from "@/lib/services/secrets";
import { newestFirstPage, newestFirstWhere } from "@/lib/services/triggers";
import type { ToolManifest } from "@/lib/tools/manifest-schema";

export type CreateConnectionInput = { app: string; permissions: string[]; token: string; owner: "person" | "company"; name?: string };

export type ConnectionView = {
  id: string;
  app: string;
  name: string | null;
  owner: "person" | "company";
  /** The person whose connection it is; null for the company's. */
  userId: string | null;
  permissions: string[];
  createdBy: string;
  createdAt: string;
};

/** A connection as a tool call sees it (`context.connections[name]`). */
export type ResolvedConnection = { app: string; permissions: string[]; owner: "person" | "company"; accessToken: string };

const binding = (id: string) => `connection:${id}`;

function view(row: Connection): ConnectionView {
  return { id: row.id, app: row.app, name: row.name, owner: row.owner as ConnectionView["owner"], userId: row.userId, permissions: row.permissions, createdBy: row.createdBy, createdAt: row.createdAt.toISOString() };
}

/** POST /v1/connections. A person's connection is the caller's own; the company's needs a tenant admin. */
export async function createConnection(actor: Actor, input: CreateConnectionInput): Promise<ConnectionView> {
  requireConnectionWrite(actor, input.owner);
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const id = crypto.randomUUID();
    const row = await tx.connection.create({
      data: {
        id,
        tenantId: actor.tenantId,
        owner: input.owner,
        userId: input.owner === "person" ? actor.userId : null,
        app: input.app,
        name: input.name ?? null,
        permissions: [...new Set(input.permissions)],
        tokenCiphertext: sealValue(actor.tenantId, binding(id), input.token),
        createdBy: actor.userId,
      },
    });
    await audit(tx, actor, { action: "connection.created", subjectType: "connection", subjectId: row.id, data: { app: row.app, owner: row.owner, userId: row.userId, permissions: row.permissions } });
    return view(row);
  });
}

export async function listConnections(actor: Actor, filters: { app?: string; owner?: "person" | "company" }, page: { limit: number; cursor?: string }): Promise<Page<ConnectionView>> {
  const db = await getDb();
  const rows = await db.connection.findMany({
    where: { tenantId: actor.tenantId, deletedAt: null, ...connectionFilter(actor), ...(filters.app ? { app: filters.app } : {}), ...(filters.owner ? { owner: filters.owner } : {}), AND: [newestFirstWhere(page.cursor)] },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.limit + 1,
  });
  return newestFirstPage(rows, page.limit, view);
}

async function findConnection(actor: Actor, connectionId: string): Promise<Connection> {
  const db = await getDb();
  const row = await db.connection.findFirst({ where: { id: connectionId, tenantId: actor.tenantId, deletedAt: null, ...connectionFilter(actor) } });
  if (!row) throw notFound("connection", connectionId);
  return row;
}

export async function getConnection(actor: Actor, connectionId: string): Promise<ConnectionView> {
  return view(await findConnection(actor, connectionId));
}

/** DELETE /v1/connections/{id}: the owner (or, for the company's, a tenant admin) removes it; later calls fail. */
export async function deleteConnection(actor: Actor, connectionId: string): Promise<ConnectionView & { deleted: true }> {
  const row = await findConnection(actor, connectionId);
  requireConnectionWrite(actor, row.owner as "person" | "company");
  if (row.owner === "person" && row.userId !== actor.userId && actor.role !== "admin") throw notFound("connection", connectionId);
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const { count } = await tx.connection.updateMany({ where: { id: row.id, deletedAt: null }, data: { deletedAt: new Date() } });
    if (count === 0) throw notFound("connection", connectionId);
    await audit(tx, actor, { action: "connection.deleted", subjectType: "connection", subjectId: row.id, data: { app: row.app, owner: row.owner, userId: row.userId } });
    return { ...view(row), deleted: true as const };
  });
}

/** Why a call's connections cannot be resolved: the code (`connection-missing`, `connection-permission-missing`) and a message naming no token. */
export class ConnectionUnavailable extends AppError {}

/**
 * The connections a tool call needs, by the tool's names for them: every `needsSpec.connections` entry, resolved for
 * the run's person (`as: "person"`) or the tenant (`as: "company"`). The newest live connection to the app with
 * every permission the entry lists wins. Throws {@link ConnectionUnavailable} before anything is sent when one is
 * missing or lacks a permission, or when the HTTP spec authorizes with a connection the tool does not declare.
 */
export async function resolveToolConnections(manifest: ToolManifest, scope: { tenantId: string; userId: string }): Promise<Record<string, ResolvedConnection>> {
  const needs = (manifest.needsSpec?.connections ?? {}) as Record<string, { app: string; permissions: string[]; as: "person" | "company" }>;
  const authorization = manifest.spec?.authorization;
  if (authorization?.kind === "connection" && !needs[authorization.connection]) {
    throw new ConnectionUnavailable("connection-missing", `the tool authorizes with connection "${authorization.connection}", which its needsSpec.connections does not declare`, { connection: authorization.connection });
  }
  const names = Object.keys(needs);
  if (!names.length) return {};
  const db = await getDb();
  const resolved: Record<string, ResolvedConnection> = {};
  for (const name of names) {
    const need = needs[name];
    const whose = need.as === "company" ? "the company's" : "the run's person's";
    const rows = await db.connection.findMany({
      where: { tenantId: scope.tenantId, app: need.app, deletedAt: null, ...(need.as === "company" ? { owner: "company" } : { owner: "person", userId: scope.userId }) },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    });
    if (!rows.length) throw new ConnectionUnavailable("connection-missing", `connection "${name}" needs ${whose} connection to ${need.app}, and none is linked`, { connection: name, app: need.app, as: need.as });
    const fit = rows.find((row) => need.permissions.every((permission) => row.permissions.includes(permission)));
    if (!fit) {
      const missing = need.permissions.filter((permission) => !rows[0].permissions.includes(permission));
      throw new ConnectionUnavailable("connection-permission-missing", `${whose} connection to ${need.app} lacks the permissions connection "${name}" needs: ${missing.join(", ")}`, { connection: name, app: need.app, as: need.as, missing });
    }
    resolved[name] = { app: fit.app, permissions: fit.permissions, owner: fit.owner as ResolvedConnection["owner"], accessToken: openValue(scope.tenantId, binding(fit.id), fit.tokenCiphertext) };
  }
  return resolved;
}

/** {@link resolveToolConnections} as a tool call's result: a connection that cannot be resolved fails the call with its code as `reason`. */
export async function resolveCallConnections(manifest: ToolManifest, scope: { tenantId: string; userId: string }): Promise<{ ok: true; value: Record<string, ResolvedConnection> } | { ok: false; error: { kind: "tool-error"; message: string; reason: string } }> {
  try {
    return { ok: true, value: await resolveToolConnections(manifest, scope) };
  } catch (error) {
    if (error instanceof ConnectionUnavailable) return { ok: false, error: { kind: "tool-error", message: error.message, reason: error.code } };
    throw error;
  }
}
