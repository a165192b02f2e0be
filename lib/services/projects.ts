import { getDb } from "@/lib/db";
import { AppError, notFound } from "@/lib/errors";
import { decodeCursor, toPage, type Page } from "@/lib/pagination";
import { type Actor, authorizeTenantWide } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";
import { bumpGeneration } from "@/lib/services/tenant-generation";

export type ProjectView = { id: string; name: string; isDefault: boolean; createdAt: string };

type ProjectRow = { id: string; name: string; createdAt: Date };
const view = (row: ProjectRow, defaultProjectId: string | null): ProjectView => ({ id: row.id, name: row.name, isDefault: row.id === defaultProjectId, createdAt: row.createdAt.toISOString() });

async function defaultProjectOf(tenantId: string): Promise<string | null> {
  const db = await getDb();
  return (await db.tenant.findUnique({ where: { id: tenantId }, select: { defaultProjectId: true } }))?.defaultProjectId ?? null;
}

/** Projects the actor can see, oldest first. */
export async function listProjects(actor: Actor, options: { limit: number; cursor?: string }): Promise<Page<ProjectView>> {
  authorizeTenantWide(actor, "projects", "read");
  const db = await getDb();
  const after = decodeCursor(options.cursor) as [string, string] | undefined;
  const rows = await db.project.findMany({
    where: {
      tenantId: actor.tenantId,
      ...(actor.projectId ? { id: actor.projectId } : {}),
      ...(after ? { OR: [{ createdAt: { gt: new Date(after[0]) } }, { createdAt: new Date(after[0]), id: { gt: after[1] } }] } : {}),
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: options.limit + 1,
  });
  const defaultProjectId = await defaultProjectOf(actor.tenantId);
  return toPage(rows, options.limit, (row) => [row.createdAt.toISOString(), row.id], (row) => view(row, defaultProjectId));
}

export async function getProject(actor: Actor, projectId: string): Promise<ProjectView> {
  authorizeTenantWide(actor, "projects", "read");
  const db = await getDb();
  const row = await db.project.findFirst({ where: { id: projectId, tenantId: actor.tenantId } });
  if (!row || (actor.projectId && actor.projectId !== row.id)) throw notFound("project", projectId);
  return view(row, await defaultProjectOf(actor.tenantId));
}

/** Creates a project in the actor's tenant (admins only; a key narrowed to one project cannot). */
export async function createProject(actor: Actor, input: { name: string }): Promise<ProjectView> {
  authorizeTenantWide(actor, "projects", "write");
  const name = input.name.trim();
  if (!name) throw new AppError("bad-input", "name must not be blank", { issues: [{ path: "/name", message: "must not be blank" }] });
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const taken = await tx.project.findUnique({ where: { tenantId_name: { tenantId: actor.tenantId, name } }, select: { id: true } });
    if (taken) throw new AppError("project-name-taken", `a project named ${JSON.stringify(name)} exists already`, { projectId: taken.id });
    const row = await tx.project.create({ data: { tenantId: actor.tenantId, name } });
    bumpGeneration(tx, actor.tenantId);
    await audit(tx, actor, { action: "project.created", subjectType: "project", subjectId: row.id, projectId: row.id });
    return view(row, null);
  });
}
