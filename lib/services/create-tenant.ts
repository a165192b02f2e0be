import { getDb } from "@/lib/db";
import { generateApiKey, generatePassword, hashApiKey, hashPassword, isWellFormedApiKey, keyPrefix } from "@/lib/services/api-keys";
import { AppError } from "@/lib/errors";

export type CreatedTenant = {
  tenant: { id: string; name: string; createdAt: string };
  project: { id: string; name: string; isDefault: true };
  admin: { id: string; email: string; password?: string };
  apiKey: { id: string; key: string; prefix: string };
};

/**
 * Creates a tenant with its default project, an admin user and an admin API key, in one transaction.
 * The key (and a generated password) are returned once and never stored in clear.
 */
export async function createTenant(options: { name: string; adminEmail?: string; adminPassword?: string; apiKey?: string }): Promise<CreatedTenant> {
  const name = options.name.trim();
  if (!name || name.length > 200) throw new AppError("bad-input", "a tenant name is 1 to 200 characters", { issues: [{ path: "/name", message: "1 to 200 characters" }] });
  const generatedPassword = options.adminPassword ? undefined : generatePassword();
  const password = options.adminPassword ?? generatedPassword!;
  const key = options.apiKey ?? generateApiKey();
  const passwordHash = await hashPassword(password);
  const db = await getDb();
  const email = (options.adminEmail ?? `admin+${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@kindgi.local`).toLowerCase();
  if (await db.user.findUnique({ where: { email }, select: { id: true } }))
    throw new AppError("bad-input", `a user with email ${email} exists already`, { issues: [{ path: "/adminEmail", message: "taken" }] });
  return db.$transaction(async (tx) => {
    const tenant = await tx.tenant.create({ data: { name } });
    const project = await tx.project.create({ data: { tenantId: tenant.id, name: "Default" } });
    await tx.tenant.update({ where: { id: tenant.id }, data: { defaultProjectId: project.id } });
    const admin = await tx.user.create({ data: { tenantId: tenant.id, email, name: "Admin", passwordHash, role: "admin", reviewerLevel: "admin" } });
    const apiKey = await tx.apiKey.create({ data: { tenantId: tenant.id, userId: admin.id, name: "bootstrap admin key", prefix: keyPrefix(key), hash: hashApiKey(key) } });
    await tx.auditEvent.create({ data: { tenantId: tenant.id, actorId: admin.id, action: "tenant.created", subjectType: "tenant", subjectId: tenant.id } });
    return {
      tenant: { id: tenant.id, name: tenant.name, createdAt: tenant.createdAt.toISOString() },
      project: { id: project.id, name: project.name, isDefault: true as const },
      admin: { id: admin.id, email, ...(generatedPassword ? { password: generatedPassword } : {}) },
      apiKey: { id: apiKey.id, key, prefix: apiKey.prefix },
    };
  });
}

/**
 * On an empty database, creates the first tenant from KINDGI_ADMIN_EMAIL, KINDGI_ADMIN_PASSWORD and
 * KINDGI_BOOTSTRAP_API_KEY (each generated when absent). Returns null when tenants exist already.
 */
export async function bootstrapFirstTenant(env: NodeJS.ProcessEnv = process.env): Promise<CreatedTenant | null> {
  if (env.KINDGI_BOOTSTRAP_API_KEY !== undefined && !isWellFormedApiKey(env.KINDGI_BOOTSTRAP_API_KEY))
    throw new Error("KINDGI_BOOTSTRAP_API_KEY must look like kgi_ followed by 20 to 200 letters and digits");
  const db = await getDb();
  if ((await db.tenant.count()) > 0) {
    await ensureBootstrapKey(env);
    return null;
  }
  return createTenant({ name: env.KINDGI_TENANT_NAME ?? "Default tenant", adminEmail: env.KINDGI_ADMIN_EMAIL ?? "admin@kindgi.local", adminPassword: env.KINDGI_ADMIN_PASSWORD, apiKey: env.KINDGI_BOOTSTRAP_API_KEY });
}

/** A KINDGI_BOOTSTRAP_API_KEY given on a later start is honoured too: it becomes a key of the first tenant's admin. */
async function ensureBootstrapKey(env: NodeJS.ProcessEnv): Promise<void> {
  const key = env.KINDGI_BOOTSTRAP_API_KEY;
  if (!key) return;
  const db = await getDb();
  if (await db.apiKey.findUnique({ where: { hash: hashApiKey(key) }, select: { id: true } })) return;
  const admin = await db.user.findFirst({ where: { role: "admin", kind: "person" }, orderBy: { createdAt: "asc" } });
  if (!admin) return;
  await db.apiKey.create({ data: { tenantId: admin.tenantId, userId: admin.id, name: "bootstrap admin key", prefix: keyPrefix(key), hash: hashApiKey(key) } });
}
