import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listGuardrailsOperation, registerGuardrailOperation } from "@/lib/api/operations/guardrails";
import { listGuardrails, registerGuardrail } from "@/lib/services/guardrails";

export const dynamic = "force-dynamic";

// POST /v1/guardrails – register a guardrail version
export const POST = route(registerGuardrailOperation, async ({ actor, body }) => created(await registerGuardrail(actor, body)));

// GET /v1/guardrails – list guardrails (latest active version of each)
export const GET = route(listGuardrailsOperation, async ({ actor, query }) =>
  ok(await listGuardrails(actor, { projectId: query.projectId as string | undefined, q: query.q as string | undefined, tag: query.tag as string | undefined }, pageParams(query))),
);
