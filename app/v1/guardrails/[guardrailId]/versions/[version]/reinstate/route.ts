import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { reinstateGuardrailVersionOperation } from "@/lib/api/operations/guardrails";
import { setGuardrailVersionStatus } from "@/lib/services/guardrails";

export const dynamic = "force-dynamic";

// POST /v1/guardrails/{guardrailId}/versions/{version}/reinstate – bring a version back
export const POST = route(reinstateGuardrailVersionOperation, async ({ actor, params }) => ok(await setGuardrailVersionStatus(actor, params.guardrailId, params.version, "active")));
