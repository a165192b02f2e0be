import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { createProjectOperation, listProjectsOperation } from "@/lib/api/operations/identity";
import { createProject, listProjects } from "@/lib/services/projects";

export const dynamic = "force-dynamic";

// GET /v1/projects – the caller's projects
export const GET = route(listProjectsOperation, async ({ actor, query }) => ok(await listProjects(actor, pageParams(query))));

// POST /v1/projects – create a project
export const POST = route(createProjectOperation, async ({ actor, body }) => created(await createProject(actor, { name: body.name as string })));
