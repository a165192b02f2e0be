/**
 * The tenant's members: the people who sign in to the console. Admins invite one (email, name, role and an initial
 * password), change a member's role, deactivate and reactivate one. A deactivated member (`kind: "deactivated"`)
 * cannot sign in, their sessions stop working on the next request (sessions need `kind: "person"`) and their API
 * keys are revoked in the same transaction; reactivating lets them sign in again (revoked keys stay revoked).
 * Nobody changes their own role or deactivates themselves, so a tenant always keeps the admin who acts.
 */
import { bumpGeneration } from "@/lib/services/tenant-generation";
import { getDb, type DbTx } from "@/lib/db";
import { AppError, notFound } from "@/lib/errors";
import { isUuid } from "@/lib/ids";
import { decodeCursor, toPage, type Page } from "@/lib/pagination";
import { type Actor, authorizeTenantWide } from "@/lib/services/actor";
import { hashPassword } from "@/lib/services/api-keys";
import { audit } from "@/lib/services/audit";

export type MemberRole = "admin" | "member" | "viewer";
export const MEMBER_ROLES: readonly MemberRole[] = ["admin", "member", "viewer"];

export type MemberView = { id: string; email: string; name: string; role: MemberRole; status: "active" | "deactivated"; reviewerLevel: string | null; createdAt: string };

type UserRow = { id: string; email: string | null; name: string; role: string; kind: string; reviewerLevel: string | null; createdAt: Date };

const MEMBER_KINDS = ["person", "deactivated"];

function memberView(row: UserRow): MemberView {
  return { id: row.id, email: row.email ?? "", name: row.name, role: row.role as MemberRole, status: row.kind === "deactivated" ? "deactivated" : "active", reviewerLevel: row.reviewerLevel, createdAt: row.createdAt.toISOString() };
}

const select = { id: true, email: true, name: true, role: true, kind: true, reviewerLevel: true, createdAt: true } as const;

/** GET /v1/members: every person of the tenant, active or deactivated, oldest first. */
export async function listMembers(actor: Actor, page: { limit: number; cursor?: string }): Promise<Page<MemberView>> {
  authorizeTenantWide(actor, "members", "read");
  const db = await getDb();
  const after = decodeCursor(page.cursor) as [string, string] | undefined;
  const rows = await db.user.findMany({
    where: {
      tenantId: actor.tenantId,
      kind: { in: MEMBER_KINDS },
      ...(after ? { OR: [{ createdAt: { gt: new Date(String(after[0])) } }, { createdAt: new Date(String(after[0])), id: { gt: String(after[1]) } }] } : {}),
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: page.limit + 1,
    select,
  });
  return toPage(rows, page.limit, (row) => [row.createdAt.toISOString(), row.id], memberView);
}

export type InviteMemberInput = { email: string; name?: string; role: MemberRole; password: string };

/** POST /v1/members: a new person of the tenant who signs in with `email` and the initial `password` (tenant admins). */
export async function inviteMember(actor: Actor, input: InviteMemberInput): Promise<MemberView> {
  authorizeTenantWide(actor, "members", "write");
  const email = input.email.trim().toLowerCase();
  const name = input.name?.trim() || email.split("@")[0];
  const passwordHash = await hashPassword(input.password);
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const taken = await tx.user.findUnique({ where: { email }, select: { id: true } });
    if (taken) throw new AppError("member-email-taken", `a person with the email ${email} exists already`, { email });
    const row = await tx.user.create({ data: { tenantId: actor.tenantId, kind: "person", email, name, role: input.role, passwordHash }, select });
    await audit(tx, actor, { action: "member.invited", subjectType: "member", subjectId: row.id, data: { email, role: input.role } });
    return memberView(row);
  });
}

async function findMember(tx: DbTx, actor: Actor, userId: string): Promise<UserRow> {
  const id = userId.toLowerCase();
  const row = isUuid(id) ? await tx.user.findFirst({ where: { id, tenantId: actor.tenantId, kind: { in: MEMBER_KINDS } }, select }) : null;
  if (!row) throw notFound("member", userId);
  return row;
}

function refuseSelf(actor: Actor, userId: string, what: string) {
  if (actor.userId === userId) throw new AppError("permission-denied", `you cannot ${what} yourself: another admin must`, { reason: "self" });
}

/** POST /v1/members/{userId}/role: sets a member's role (tenant admins, not their own). */
export async function setMemberRole(actor: Actor, userId: string, role: MemberRole): Promise<MemberView> {
  authorizeTenantWide(actor, "members", "write");
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const row = await findMember(tx, actor, userId);
    refuseSelf(actor, row.id, "change the role of");
    if (row.role === role) return memberView(row);
    const updated = await tx.user.update({ where: { id: row.id }, data: { role }, select });
    // Cached actors carry the role: the next request of this member (here at once, elsewhere within a second) sees the new one.
    bumpGeneration(tx, actor.tenantId);
    await audit(tx, actor, { action: "member.role-changed", subjectType: "member", subjectId: row.id, data: { from: row.role, to: role } });
    return memberView(updated);
  });
}

/** POST /v1/members/{userId}/deactivate: the member can no longer sign in, and their API keys are revoked. */
export async function deactivateMember(actor: Actor, userId: string): Promise<MemberView> {
  authorizeTenantWide(actor, "members", "write");
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const row = await findMember(tx, actor, userId);
    refuseSelf(actor, row.id, "deactivate");
    if (row.kind === "deactivated") return memberView(row);
    const updated = await tx.user.update({ where: { id: row.id }, data: { kind: "deactivated" }, select });
    const { count } = await tx.apiKey.updateMany({ where: { userId: row.id, revokedAt: null }, data: { revokedAt: new Date() } });
    bumpGeneration(tx, actor.tenantId);
    await audit(tx, actor, { action: "member.deactivated", subjectType: "member", subjectId: row.id, data: { keysRevoked: count } });
    return memberView(updated);
  });
}

/** POST /v1/members/{userId}/reactivate: the member may sign in again. */
export async function reactivateMember(actor: Actor, userId: string): Promise<MemberView> {
  authorizeTenantWide(actor, "members", "write");
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const row = await findMember(tx, actor, userId);
    if (row.kind !== "deactivated") return memberView(row);
    const updated = await tx.user.update({ where: { id: row.id }, data: { kind: "person" }, select });
    bumpGeneration(tx, actor.tenantId);
    await audit(tx, actor, { action: "member.reactivated", subjectType: "member", subjectId: row.id });
    return memberView(updated);
  });
}
