import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { deleteProviderOperation, getProviderOperation } from "@/lib/api/operations/providers";
import { deleteModelProvider, getModelProvider } from "@/lib/services/model-providers";

export const dynamic = "force-dynamic";

// GET /v1/providers/{providerId} – one of the tenant's own providers
export const GET = route(getProviderOperation, async ({ actor, params }) => ok(await getModelProvider(actor, params.providerId)));

// DELETE /v1/providers/{providerId} – remove one of the tenant's own providers
export const DELETE = route(deleteProviderOperation, async ({ actor, params }) => ok(await deleteModelProvider(actor, params.providerId)));
