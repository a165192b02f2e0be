/**
 * Sessions of the MCP server (`Mcp-Session-Id`): handed out at `initialize`, kept in the database so that any
 * replica serves any request of a session, usable only by the credential that opened it, for 30 days or until the
 * client ends it (DELETE). A session holds what a client sets for later requests: its log level.
 */
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db";
import type { Actor } from "@/lib/services/actor";

const SESSION_DAYS = 30;

export type McpSessionView = { id: string; logLevel: string | null };

export async function openSession(actor: Actor, server: string, protocolVersion: string | null): Promise<string> {
  const db = await getDb();
  const now = new Date();
  const id = randomUUID();
  await db.mcpSession.create({ data: { id, tenantId: actor.tenantId, callerId: actor.callerId, server, protocolVersion, expiresAt: new Date(now.getTime() + SESSION_DAYS * 86_400_000) } });
  // Ended ones go now and then (a cheap indexed delete).
  if (Math.random() < 0.05) await db.mcpSession.deleteMany({ where: { expiresAt: { lt: now } } });
  return id;
}

/** The session `id` of this credential and server, or null (unknown, ended, another's). */
export async function findSession(actor: Actor, server: string, id: string): Promise<McpSessionView | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const db = await getDb();
  const row = await db.mcpSession.findUnique({ where: { id }, select: { id: true, tenantId: true, callerId: true, server: true, logLevel: true, expiresAt: true } });
  if (!row || row.tenantId !== actor.tenantId || row.callerId !== actor.callerId || row.server !== server || row.expiresAt <= new Date()) return null;
  return { id: row.id, logLevel: row.logLevel };
}

export async function setSessionLogLevel(id: string, level: string): Promise<void> {
  const db = await getDb();
  await db.mcpSession.update({ where: { id }, data: { logLevel: level } });
}

/** Ends the session; false when it was none of this credential's. */
export async function endSession(actor: Actor, server: string, id: string): Promise<boolean> {
  if (!(await findSession(actor, server, id))) return false;
  const db = await getDb();
  await db.mcpSession.delete({ where: { id } });
  return true;
}
