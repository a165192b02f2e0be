import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listProvidersOperation } from "@/lib/api/operations/agents";
import { listModelProviders } from "@/lib/services/agents";

export const dynamic = "force-dynamic";

// GET /v1/providers – the model providers this deployment has, in routing order
export const GET = route(listProvidersOperation, async ({ actor, query }) => ok(await listModelProviders(actor, pageParams(query))));
