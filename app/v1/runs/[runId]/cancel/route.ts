import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { cancelRunOperation } from "@/lib/api/operations/runs";
import { cancelRun } from "@/lib/services/runs";

export const dynamic = "force-dynamic";

// POST /v1/runs/{runId}/cancel – cancel a run that has not finished
export const POST = route(cancelRunOperation, async ({ actor, params }) => ok(await cancelRun(actor, params.runId)));
