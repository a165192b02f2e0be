import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { openApiOperation } from "@/lib/api/operations/system";
import { buildOpenApiDocument } from "@/lib/api/openapi";

export const dynamic = "force-dynamic";

// GET /v1/openapi.json – the OpenAPI 3.1 document of the API
export const GET = route(openApiOperation, async () => ok(buildOpenApiDocument()));
