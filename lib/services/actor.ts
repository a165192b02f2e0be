import { AppError } from "@/lib/errors";
import type { DbTx } from "@/lib/db";
import { isUuid } from "@/lib/ids";

/** Who is calling: always derived from the credential, never from a body or a query. */
export type Actor = {
  tenantId: string;
  userId: string;
  /** The API key used, when the caller authenticated with one. */
  apiKeyId: string | null;
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

export function requireWrite(actor: Actor): void {
  if (!canWrite(actor)) throw new AppError("permission-denied", "a viewer cannot change anything");
}

export function requireAdmin(actor: Actor): void {
  if (!isAdmin(actor)) throw new AppError("permission-denied", "only a tenant admin can do this");
}

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
  const issue = (message: string) => new AppError("bad-input", message, { issues: [{ path: "/projectId", message }] });
  if (projectId === undefined) throw issue("projectId is required");
  if (typeof projectId !== "string" || !isUuid(projectId)) throw issue("projectId must be a UUID");
  const id = projectId.toLowerCase();
  if (actor.projectId && actor.projectId !== id) throw issue("projectId is not a project of the caller's tenant");
  const project = await tx.project.findFirst({ where: { id, tenantId: actor.tenantId }, select: { id: true } });
  if (!project) throw issue("projectId is not a project of the caller's tenant");
  return project.id;
}
