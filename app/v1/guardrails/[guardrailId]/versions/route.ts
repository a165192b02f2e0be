import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listGuardrailVersionsOperation } from "@/lib/api/operations/guardrails";
import { listGuardrailVersions } from "@/lib/services/guardrails";

export const dynamic = "force-dynamic";

// GET /v1/guardrails/{guardrailId}/versions – versions, newest first
export const GET = route(listGuardrailVersionsOperation, async ({ actor, params, query }) => ok(await listGuardrailVersions(actor, params.guardrailId, pageParams(query))));
