import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getProjectOperation } from "@/lib/api/operations/identity";
import { getProject } from "@/lib/services/projects";

export const dynamic = "force-dynamic";

// GET /v1/projects/{projectId} – one project
export const GET = route(getProjectOperation, async ({ actor, params }) => ok(await getProject(actor, params.projectId)));
