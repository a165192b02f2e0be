import { decode } from "next-auth/jwt";
import { getDb } from "@/lib/db";
import { AppError } from "@/lib/errors";
import type { Actor } from "@/lib/services/actor";
import { hashApiKey, isWellFormedApiKey, verifyPassword } from "@/lib/services/api-keys";
import { isUuid } from "@/lib/ids";
import { sessionSecretProblem, sessionSecret } from "@/lib/secrets/session-secret";
import { cacheKeyOf, cachedFor } from "@/lib/services/tenant-generation";

const LAST_USED_RESOLUTION_MS = 60_000;
/** When this process last wrote each key's lastUsedAt: at most one write per key per minute. */
const lastUsedWritten = new Map<string, number>();

/**
 * Resolves a bearer API key to its actor, in one query, or from the cache under the tenant's generation (minting or
 * revoking a key bumps it): a revoked key is refused on the very next request on this server, within one second on
 * every other.
 */
export async function authenticateApiKey(key: string): Promise<Actor> {
  if (!isWellFormedApiKey(key)) throw new AppError("auth-invalid", "the bearer token is not a Kindgi API key");
  const hash = hashApiKey(key);
  const found = await cachedFor(`key:${hash}`, async () => {
    const db = await getDb();
    // One statement (the generated client would read the key and its user in two).
    const [row] = await db.$queryRawUnsafe<{ id: string; tenantId: string; projectId: string | null; revokedAt: Date | null; lastUsedAt: Date | string | null; userId: string; role: string; kind: string; name: string }[]>(
      `SELECT k."id"::text AS "id", k."tenantId"::text AS "tenantId", k."projectId"::text AS "projectId", k."revokedAt", k."lastUsedAt", k."name", u."id"::text AS "userId", u."role", u."kind"
       FROM "ApiKey" k JOIN "User" u ON u."id" = k."userId" WHERE k."hash" = $1`,
      hash,
    );
    // An unknown key is not cached (tenantId ""), a revoked one is, under its tenant.
    if (!row) return { tenantId: "", value: null };
    if (row.lastUsedAt && !lastUsedWritten.has(row.id)) lastUsedWritten.set(row.id, new Date(row.lastUsedAt).getTime());
    const actor: Actor = {
      tenantId: row.tenantId,
      userId: row.userId,
      apiKeyId: row.id,
      apiKeyName: row.name,
      projectId: row.projectId,
      role: row.role as Actor["role"],
      isService: row.kind === "service",
      callerId: `key:${row.id}`,
    };
    return { tenantId: row.tenantId, value: { actor, revoked: row.revokedAt !== null } };
  });
  if (!found) throw new AppError("auth-invalid", "unknown API key");
  if (found.revoked) throw new AppError("auth-revoked", "this API key was revoked");
  noteKeyUsed(found.actor.apiKeyId!);
  return { ...found.actor };
}

/** Records a key's use at most once a minute per key, off the request's path (a lost update only makes it older). */
function noteKeyUsed(keyId: string) {
  const now = Date.now();
  const last = lastUsedWritten.get(keyId);
  if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return;
  lastUsedWritten.set(keyId, now);
  if (lastUsedWritten.size > 100_000) lastUsedWritten.clear();
  getDb()
    .then((db) => db.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: new Date(now) }, select: { id: true } }))
    .catch(() => {});
}

/** The console's session cookie names (the second is used when the console is served over https). */
export const SESSION_COOKIE_NAMES = ["next-auth.session-token", "__Secure-next-auth.session-token"] as const;

/** The session token in a Cookie header (next-auth splits a large one into `.0`, `.1`, … chunks), or null. */
export function sessionTokenFromCookieHeader(header: string | null): string | null {
  if (!header) return null;
  const cookies = new Map<string, string>();
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    const name = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    try {
      cookies.set(name, decodeURIComponent(value));
    } catch {
      cookies.set(name, value);
    }
  }
  for (const name of [...SESSION_COOKIE_NAMES].reverse()) {
    if (cookies.has(name)) return cookies.get(name)!;
    const chunks: string[] = [];
    for (let index = 0; cookies.has(`${name}.${index}`); index++) chunks.push(cookies.get(`${name}.${index}`)!);
    if (chunks.length) return chunks.join("");
  }
  return null;
}

/**
 * Resolves a console session token to its actor. The token must decrypt under the session key and be unexpired,
 * and its user must still exist in its tenant (checked on every request). The actor has the user's role and sees
 * every project of the tenant.
 */
export async function authenticateSession(token: string, secret?: string): Promise<Actor> {
  if (secret === undefined) {
    if (sessionSecretProblem()) throw new AppError("auth-invalid", "console sign-in is not configured on this server; send an API key");
    secret = sessionSecret();
  }
  const resolved = secret;
  // The token decrypted and its user checked, once per generation of the user's tenant (an unknown one is not kept).
  const actor = await cachedFor<Actor | "gone" | null>(cacheKeyOf("session", `${resolved}\u0000${token}`), async () => {
    let payload: Record<string, unknown> | null = null;
    try {
      payload = (await decode({ token, secret: resolved })) as Record<string, unknown> | null;
    } catch {
      payload = null;
    }
    const userId = payload?.userId;
    const tenantId = payload?.tenantId;
    if (typeof userId !== "string" || typeof tenantId !== "string" || !isUuid(userId)) return { tenantId: "", value: null };
    const db = await getDb();
    const user = await db.user.findUnique({ where: { id: userId }, select: { id: true, tenantId: true, role: true, kind: true } });
    if (!user || user.tenantId !== tenantId || user.kind !== "person") return { tenantId, value: "gone" as const };
    const found: Actor = { tenantId: user.tenantId, userId: user.id, apiKeyId: null, projectId: null, role: user.role as Actor["role"], isService: false, callerId: `session:${user.id}` };
    return { tenantId, value: found };
  });
  if (actor === null) throw new AppError("auth-invalid", "the session is not valid or has expired; sign in again");
  if (actor === "gone") throw new AppError("auth-invalid", "the session's user no longer exists; sign in again");
  return { ...actor };
}

export type SignedInUser = { id: string; tenantId: string; email: string; name: string };

/** Checks a person's email and password for the console's sign-in; null when either is wrong. */
export async function verifySignIn(email: string, password: string): Promise<SignedInUser | null> {
  const normalized = email.trim().toLowerCase();
  if (!normalized || !password || normalized.length > 320 || password.length > 1024) return null;
  const db = await getDb();
  const user = await db.user.findUnique({ where: { email: normalized }, select: { id: true, tenantId: true, email: true, name: true, kind: true, passwordHash: true } });
  if (!user || user.kind !== "person" || !user.passwordHash) return null;
  if (!(await verifyPassword(password, user.passwordHash))) return null;
  return { id: user.id, tenantId: user.tenantId, email: user.email!, name: user.name };
}

/** Whether a signed-in person's session still names an existing user of its tenant (the console layout asks). */
export async function sessionUserExists(userId: unknown, tenantId: unknown): Promise<{ name: string; email: string } | null> {
  if (typeof userId !== "string" || typeof tenantId !== "string" || !isUuid(userId)) return null;
  const db = await getDb();
  const user = await db.user.findUnique({ where: { id: userId }, select: { tenantId: true, kind: true, name: true, email: true } });
  if (!user || user.tenantId !== tenantId || user.kind !== "person") return null;
  return { name: user.name, email: user.email ?? "" };
}
