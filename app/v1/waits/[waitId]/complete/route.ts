import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { completeWaitOperation } from "@/lib/api/operations/approvals";
import { completeWait } from "@/lib/services/approvals";

export const dynamic = "force-dynamic";

// POST /v1/waits/{waitId}/complete – a paused call's answer; the wait token in the body is the credential
export const POST = route(completeWaitOperation, async ({ params, body }) => ok(await completeWait(params.waitId, body.token as string, body.output)));
