import { route } from "@/lib/api/route";
import { created } from "@/lib/api/respond";
import { createTenantOperation } from "@/lib/api/operations/identity";
import { createTenant } from "@/lib/services/create-tenant";

export const dynamic = "force-dynamic";

// POST /v1/tenants – create a tenant (operator token only)
export const POST = route(createTenantOperation, async ({ body }) =>
  created(await createTenant({ name: body.name as string, adminEmail: body.adminEmail as string | undefined, adminPassword: body.adminPassword as string | undefined }), { containsSecret: true }),
);
