import { AppError } from "@/lib/errors";
import type { DbTx } from "@/lib/db";
import { isUuid } from "@/lib/ids";

/** Who is calling: always derived from the credential, never from a body or a query. */
export type Actor = {
  tenantId: string;
  userId: string;
  /** The API key used, when the caller authenticated with one. */
  apiKeyId: string | null;
  /** That key's name (what the console shows for it). */
  apiKeyName?: string;
  /** A key narrowed to one project sees and writes only that project. */
  projectId: string | null;
  role: "admin" | "member" | "viewer";
  /** A service account (unattended) rather than a person. */
  isService: boolean;
  /** Idempotency scope: the credential that made the request. */
  callerId: string;
};

export const canWrite = (actor: Actor) => actor.role !== "viewer";
export const isAdmin = (actor: Actor) => actor.role === "admin";
/** A credential that reaches one project only (a narrowed key). */
export const isNarrowed = (actor: Actor): actor is Actor & { projectId: string } => actor.projectId !== null;

export function requireWrite(actor: Actor): void {
  if (!canWrite(actor)) throw new AppError("permission-denied", "a viewer cannot change anything");
}

/**
 * Deciding an approval needs a person: a service account's key (an unattended caller) or a viewer → 403.
 */
export function requireDecider(actor: Actor): void {
  if (actor.isService) throw new AppError("permission-denied", "a service account cannot decide approvals: a person must", { reason: "service-account" });
  if (!canWrite(actor)) throw new AppError("permission-denied", "a viewer cannot decide approvals");
}

export function requireAdmin(actor: Actor): void {
  if (!isAdmin(actor)) throw new AppError("permission-denied", "only a tenant admin can do this");
}

/**
 * Resources that belong to the tenant rather than to one project. What a credential may do with each is decided
 * here, and only here; services call `authorizeTenantWide` before they touch one.
 */
export type TenantWideResource = "providers" | "secrets" | "tokens" | "service-accounts" | "projects" | "members" | "company-connections";
export type TenantWideAction = "read" | "write";

/**
 * Who may do what with a tenant-wide resource:
 * - `anyone`: every role; a narrowed key too, but services show it only what its project uses
 *   (providers its project may be routed to, its own project, its own keys narrowed to the same project);
 * - `writer`: members and admins; a narrowed key only within its project (its own keys narrowed to it);
 * - `tenant`: credentials that are not narrowed to a project (any role);
 * - `tenant-admin`: tenant admins whose credential is not narrowed to a project.
 */
type Requirement = "anyone" | "writer" | "tenant" | "tenant-admin";

export const TENANT_WIDE_RULES: Record<TenantWideResource, Record<TenantWideAction, Requirement>> = {
  providers: { read: "anyone", write: "tenant-admin" },
  secrets: { read: "tenant", write: "tenant-admin" },
  tokens: { read: "anyone", write: "writer" },
  "service-accounts": { read: "tenant-admin", write: "tenant-admin" },
  projects: { read: "anyone", write: "tenant-admin" },
  members: { read: "tenant", write: "tenant-admin" },
  "company-connections": { read: "anyone", write: "tenant-admin" },
};

const NOUNS: Record<TenantWideResource, string> = {
  providers: "the tenant's model providers",
  secrets: "the tenant's secrets",
  tokens: "API keys",
  "service-accounts": "service accounts",
  projects: "the tenant's projects",
  members: "the tenant's members",
  "company-connections": "the company's connections",
};

/**
 * Throws 403 `permission-denied` unless the actor may `action` the tenant-wide `resource` (TENANT_WIDE_RULES).
 * A narrowed key is told that its narrowing is the reason (`details.reason: "key-narrowed-to-project"`).
 */
export function authorizeTenantWide(actor: Actor, resource: TenantWideResource, action: TenantWideAction): void {
  const requirement = TENANT_WIDE_RULES[resource][action];
  const verb = action === "read" ? "read" : "change";
  if ((requirement === "writer" || action === "write") && !canWrite(actor)) throw new AppError("permission-denied", `a viewer cannot change ${NOUNS[resource]}`);
  if ((requirement === "tenant" || requirement === "tenant-admin") && isNarrowed(actor)) {
    throw new AppError("permission-denied", `a key narrowed to project ${actor.projectId} cannot ${verb} ${NOUNS[resource]}: use a key that is not narrowed`, {
      reason: "key-narrowed-to-project",
      resource,
      projectId: actor.projectId,
    });
  }
  if (requirement === "tenant-admin" && !isAdmin(actor)) throw new AppError("permission-denied", `only a tenant admin can ${verb} ${NOUNS[resource]}`);
}

/**
 * Whether the actor may act on an API key (see or revoke it): tenant-wide admins on every key of the tenant;
 * anyone else on their own keys, and a narrowed key only on its own keys narrowed to the same project.
 */
export function reachesApiKey(actor: Actor, key: { userId: string; projectId: string | null }): boolean {
  if (isNarrowed(actor)) return key.userId === actor.userId && key.projectId === actor.projectId;
  return isAdmin(actor) || key.userId === actor.userId;
}

/** The Prisma filter on API keys matching `reachesApiKey`. */
export function apiKeyFilter(actor: Actor): { userId?: string; projectId?: string } {
  if (isNarrowed(actor)) return { userId: actor.userId, projectId: actor.projectId };
  return isAdmin(actor) ? {} : { userId: actor.userId };
}

/**
 * Whether a provider limited to `projectIds` (null: every project of the tenant) may serve `projectId`, and may be
 * seen by the actor: a narrowed key sees only the providers its project may be routed to.
 */
export const providerServesProject = (projectIds: readonly string[] | null, projectId: string) => projectIds === null || projectIds.includes(projectId);
export const actorSeesProvider = (actor: Actor, projectIds: readonly string[] | null) => !isNarrowed(actor) || providerServesProject(projectIds, actor.projectId);

/** The projects the actor may see, as a Prisma filter on `projectId`. */
export function projectFilter(actor: Actor, requested?: string): { projectId?: string | { in: string[] } } {
  if (actor.projectId && requested && requested !== actor.projectId) return { projectId: { in: [] } };
  const projectId = actor.projectId ?? requested;
  return projectId ? { projectId } : {};
}

/**
 * Checks that `projectId` names a project of the actor's tenant that the actor may use.
 * A missing or foreign project is 400 bad-input (the seed's rule for POST /v1/tools).
 */
export async function resolveWritableProject(tx: DbTx, actor: Actor, projectId: unknown): Promise<string> {
  return resolveWritableProjectWith(actor, projectId, async (id) => (await tx.project.findFirst({ where: { id, tenantId: actor.tenantId }, select: { id: true } })) !== null);
}

/** As {@link resolveWritableProject}, with `exists` telling whether the tenant has project `id` (e.g. from a cache). */
export async function resolveWritableProjectWith(actor: Actor, projectId: unknown, exists: (id: string) => Promise<boolean>): Promise<string> {
  const issue = (message: string) => new AppError("bad-input", message, { issues: [{ path: "/projectId", message }] });
  if (projectId === undefined) throw issue("projectId is required");
  if (typeof projectId !== "string" || !isUuid(projectId)) throw issue("projectId must be a UUID");
  const id = projectId.toLowerCase();
  if (actor.projectId && actor.projectId !== id) throw issue("projectId is not a project of the caller's tenant");
  if (!(await exists(id))) throw issue("projectId is not a project of the caller's tenant");
  return id;
}

/**
 * Project admins. Roles are per tenant today, so a tenant admin is an admin of every project of the tenant; a key of
 * an admin narrowed to a project is an admin of that project only.
 */
export function isProjectAdmin(actor: Actor, projectId: string): boolean {
  return isAdmin(actor) && (!isNarrowed(actor) || actor.projectId === projectId);
}

/**
 * Triggers (schedules, webhooks): writers of the project create, pause, resume and unregister them; setting
 * `toolsAllowedUnattended` (tools a run no person started may call without asking) needs a project admin.
 */
export function requireTriggerWrite(actor: Actor, projectId: string, options: { setsToolsAllowedUnattended: boolean }): void {
  requireWrite(actor);
  if (options.setsToolsAllowedUnattended && !isProjectAdmin(actor, projectId)) {
    throw new AppError("permission-denied", "only a project admin can set toolsAllowedUnattended", { reason: "project-admin-required", field: "toolsAllowedUnattended" });
  }
}

/** Notification endpoints receive what the project's approvals ask: project admins register, test and delete them. */
export function requireNotificationWrite(actor: Actor, projectId: string): void {
  requireWrite(actor);
  if (!isProjectAdmin(actor, projectId)) throw new AppError("permission-denied", "only a project admin can change notification endpoints");
}

/**
 * Connections: a person links their own accounts (any role but viewer, a narrowed key too); the company's accounts are
 * linked and removed by tenant admins whose key is not narrowed. Everyone sees their own connections and the
 * company's; a tenant admin (not narrowed) also sees every person's. Tokens are never shown to anyone.
 */
export function requireConnectionWrite(actor: Actor, owner: "person" | "company"): void {
  requireWrite(actor);
  if (owner === "company") authorizeTenantWide(actor, "company-connections", "write");
}

/** The Prisma filter on connections the actor sees (see {@link requireConnectionWrite}). */
export function connectionFilter(actor: Actor): { OR?: Array<{ owner: string } | { userId: string }> } {
  if (isAdmin(actor) && !isNarrowed(actor)) return {};
  return { OR: [{ owner: "company" }, { userId: actor.userId }] };
}

/**
 * The audit log: tenant admins read it. A tenant-wide admin credential sees every entry of the tenant; an admin's key
 * narrowed to a project sees only entries recorded for that project. Anyone else: 403.
 */
export function auditFilter(actor: Actor): { projectId?: string } {
  if (!isAdmin(actor)) throw new AppError("permission-denied", "only a tenant admin can read the audit log");
  return isNarrowed(actor) ? { projectId: actor.projectId } : {};
}
