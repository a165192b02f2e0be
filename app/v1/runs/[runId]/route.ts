import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getRunOperation } from "@/lib/api/operations/runs";
import { getRun } from "@/lib/services/runs";

export const dynamic = "force-dynamic";

// GET /v1/runs/{runId} – status, versions, usage, cost, output or failure
export const GET = route(getRunOperation, async ({ actor, params }) => ok(await getRun(actor, params.runId)));
