import { getDb } from "@/lib/db";
import { AppError, notFound } from "@/lib/errors";
import { decodeCursor, toPage, type Page } from "@/lib/pagination";
import { type Actor, apiKeyFilter, authorizeTenantWide, reachesApiKey, resolveWritableProject } from "@/lib/services/actor";
import { generateApiKey, hashApiKey, keyPrefix } from "@/lib/services/api-keys";
import { audit } from "@/lib/services/audit";
import { bumpGeneration, cached } from "@/lib/services/tenant-generation";

export type TokenView = {
  id: string;
  name: string;
  prefix: string;
  projectId: string | null;
  actsFor: { userId: string; kind: "person" | "service"; name: string };
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
};

const tokenSelect = { id: true, name: true, prefix: true, projectId: true, createdAt: true, lastUsedAt: true, revokedAt: true, user: { select: { id: true, kind: true, name: true } } } as const;
type TokenRow = { id: string; name: string; prefix: string; projectId: string | null; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null; user: { id: string; kind: string; name: string } };

const view = (row: TokenRow): TokenView => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  projectId: row.projectId,
  actsFor: { userId: row.user.id, kind: row.user.kind as "person" | "service", name: row.user.name },
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
});

export type MintTokenInput = { name: string; projectId?: string; serviceAccount?: { name: string; role?: "member" | "viewer" | "admin" } };

/**
 * Mints an API key acting for the caller, or (tenant-wide admins only) for a new service account.
 * A key narrowed to a project can only mint keys narrowed to the same project.
 * The key is in the response once and never again.
 */
export async function mintToken(actor: Actor, input: MintTokenInput): Promise<TokenView & { key: string }> {
  authorizeTenantWide(actor, "tokens", "write");
  if (input.serviceAccount) authorizeTenantWide(actor, "service-accounts", "write");
  const name = input.name.trim();
  if (!name) throw new AppError("bad-input", "name must not be blank", { issues: [{ path: "/name", message: "must not be blank" }] });
  const db = await getDb();
  const key = generateApiKey();
  return db.$transaction(async (tx) => {
    const projectId = input.projectId !== undefined ? await resolveWritableProject(tx, actor, input.projectId) : actor.projectId;
    let userId = actor.userId;
    if (input.serviceAccount) {
      const account = await tx.user.create({ data: { tenantId: actor.tenantId, kind: "service", name: input.serviceAccount.name, role: input.serviceAccount.role ?? "member" } });
      userId = account.id;
    }
    const row = await tx.apiKey.create({ data: { tenantId: actor.tenantId, userId, projectId, name, prefix: keyPrefix(key), hash: hashApiKey(key) }, select: tokenSelect });
    bumpGeneration(tx, actor.tenantId);
    await audit(tx, actor, { action: "api-key.created", subjectType: "api-key", subjectId: row.id, projectId, data: { prefix: row.prefix, actsFor: userId } });
    return { ...view(row), key };
  });
}

/**
 * Keys of the tenant (tenant-wide admins), the caller's own keys (everyone else), or, for a key narrowed to a
 * project, the caller's own keys narrowed to the same project; newest first.
 */
export async function listTokens(actor: Actor, options: { limit: number; cursor?: string; includeRevoked?: boolean }): Promise<Page<TokenView>> {
  authorizeTenantWide(actor, "tokens", "read");
  const db = await getDb();
  const after = decodeCursor(options.cursor) as [string, string] | undefined;
  const rows = await db.apiKey.findMany({
    where: {
      tenantId: actor.tenantId,
      ...apiKeyFilter(actor),
      ...(options.includeRevoked === false ? { revokedAt: null } : {}),
      ...(after ? { OR: [{ createdAt: { lt: new Date(after[0]) } }, { createdAt: new Date(after[0]), id: { lt: after[1] } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: options.limit + 1,
    select: tokenSelect,
  });
  return toPage(rows, options.limit, (row) => [row.createdAt.toISOString(), row.id], view);
}

/** Revokes a key the actor reaches (see `reachesApiKey`; others are 404); effective on its next request. Revoking a revoked key answers it unchanged. */
export async function revokeToken(actor: Actor, tokenId: string): Promise<TokenView> {
  authorizeTenantWide(actor, "tokens", "write");
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const row = await tx.apiKey.findFirst({ where: { id: tokenId, tenantId: actor.tenantId }, select: tokenSelect });
    if (!row || !reachesApiKey(actor, { userId: row.user.id, projectId: row.projectId })) throw notFound("token", tokenId);
    if (row.revokedAt) return view(row);
    const updated = await tx.apiKey.update({ where: { id: row.id }, data: { revokedAt: new Date() }, select: tokenSelect });
    bumpGeneration(tx, actor.tenantId);
    await audit(tx, actor, { action: "api-key.revoked", subjectType: "api-key", subjectId: row.id, projectId: row.projectId });
    return view(updated);
  });
}

export type Identity = {
  tenant: { id: string; name: string; defaultProjectId: string | null };
  user: { id: string; kind: string; name: string; email: string | null; role: string; reviewerLevel: string | null };
  apiKey: { id: string; prefix: string; projectId: string | null } | null;
};

/** Who the credential acts for. */
export function whoami(actor: Actor): Promise<Identity> {
  // Under the tenant's generation: at most one second old, none after a write of this server to the tenant.
  return cached(actor.tenantId, `whoami:${actor.callerId}`, () => loadIdentity(actor));
}

type IdentityRow = {
  tenantId: string;
  tenantName: string;
  defaultProjectId: string | null;
  userId: string;
  kind: string;
  userName: string;
  email: string | null;
  role: string;
  reviewerLevel: string | null;
  keyId: string | null;
  prefix: string | null;
  keyProjectId: string | null;
};

/** The tenant, the user and the key (if any) in one statement (the generated client would take three). */
async function loadIdentity(actor: Actor): Promise<Identity> {
  const db = await getDb();
  const [row] = await db.$queryRawUnsafe<IdentityRow[]>(
    `SELECT t."id"::text AS "tenantId", t."name" AS "tenantName", t."defaultProjectId"::text AS "defaultProjectId",
            u."id"::text AS "userId", u."kind", u."name" AS "userName", u."email", u."role", u."reviewerLevel",
            k."id"::text AS "keyId", k."prefix", k."projectId"::text AS "keyProjectId"
     FROM "Tenant" t JOIN "User" u ON u."id" = $2::uuid LEFT JOIN "ApiKey" k ON k."id" = $3::uuid
     WHERE t."id" = $1::uuid`,
    actor.tenantId,
    actor.userId,
    actor.apiKeyId ?? null,
  );
  // The credential was valid a moment ago; its tenant or user gone since is a credential no longer valid.
  if (!row) throw new AppError("auth-invalid", "the credential's tenant or user no longer exists");
  return {
    tenant: { id: row.tenantId, name: row.tenantName, defaultProjectId: row.defaultProjectId },
    user: { id: row.userId, kind: row.kind, name: row.userName, email: row.email, role: row.role, reviewerLevel: row.reviewerLevel },
    apiKey: row.keyId ? { id: row.keyId, prefix: row.prefix!, projectId: row.keyProjectId } : null,
  };
}
