import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listProvidersOperation, registerProviderOperation } from "@/lib/api/operations/providers";
import { listModelProviders, registerModelProvider } from "@/lib/services/model-providers";

export const dynamic = "force-dynamic";

// GET /v1/providers – the model providers the tenant's agents are routed to, in routing order
export const GET = route(listProvidersOperation, async ({ actor, query }) => ok(await listModelProviders(actor, { ...pageParams(query), projectId: query.projectId as string | undefined })));

// POST /v1/providers – configure a model provider for the tenant
export const POST = route(registerProviderOperation, async ({ actor, body }) => created(await registerModelProvider(actor, body)));
