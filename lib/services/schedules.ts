/**
 * Schedules: a cron pattern in an IANA time zone that starts unattended runs of an agent (POST /v1/schedules), and
 * the scheduler loop of the server process that fires them.
 *
 * Firing: the schedule row holds the next tick (`nextFireAt`). A server whose clock has passed it claims the tick with
 * a compare-and-set of `nextFireAt` to the first tick after now, and writes the unique (scheduleId, tick) fire row in
 * the same transaction: of two replicas only one fires a tick. Ticks missed while no server ran are not replayed one
 * by one: the oldest missed tick fires once (marked `missed`), and the next tick is the first one after now.
 */
import { startBackgroundLoop, type BackgroundLoop } from "@/lib/services/background-loop";
import { Cron } from "croner";
import type { Prisma, Schedule, ScheduleFire } from "@/lib/generated/prisma/client";
import { getDb, type DbTx } from "@/lib/db";
import { AppError, notFound, type Issue } from "@/lib/errors";
import { type Page } from "@/lib/pagination";
import { type Actor, projectFilter, requireTriggerWrite } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";
import { createRun } from "@/lib/services/runs";
import { failureOf, newestFirstPage, newestFirstWhere, nextTriggerStatus, resolveTriggerAgent, runStatuses, triggerOwnerActor, type TriggerStatus } from "@/lib/services/triggers";
import { log } from "@/lib/log";

export type CreateScheduleInput = {
  projectId?: string;
  name: string;
  cron: string;
  timezone: string;
  agent: { id: string; version?: string };
  input: { userMessage: string; parameters?: Record<string, unknown> };
  toolsAllowedUnattended?: string[];
};

export type ScheduleView = {
  id: string;
  projectId: string;
  name: string;
  cron: string;
  timezone: string;
  /** `version` null: the highest active version at each fire. */
  agent: { id: string; version: string | null };
  input: { userMessage: string; parameters: Record<string, unknown> };
  toolsAllowedUnattended: string[];
  status: TriggerStatus;
  /** The next tick (null unless active). */
  nextFireAt: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
};

export type ScheduleFireView = {
  id: string;
  scheduleId: string;
  /** The tick fired for. */
  tick: string;
  /** The tick passed while no server ran and fired late, once. */
  missed: boolean;
  /** pending (claimed, the run not written yet), started or failed (see `error`). */
  outcome: "pending" | "started" | "failed";
  runId: string | null;
  run: { id: string; status: string } | null;
  error: { code: string; message: string } | null;
  firedAt: string;
};

function view(row: Schedule): ScheduleView {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    cron: row.cron,
    timezone: row.timezone,
    agent: { id: row.agentId, version: row.agentVersion },
    input: { userMessage: row.userMessage, parameters: (row.parameters ?? {}) as Record<string, unknown> },
    toolsAllowedUnattended: row.toolsAllowedUnattended,
    status: row.status as TriggerStatus,
    nextFireAt: row.nextFireAt?.toISOString() ?? null,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function fireView(row: ScheduleFire, statuses: Map<string, string>): ScheduleFireView {
  const status = row.runId ? statuses.get(row.runId) : undefined;
  return {
    id: row.id,
    scheduleId: row.scheduleId,
    tick: row.tick.toISOString(),
    missed: row.missed,
    outcome: row.outcome as ScheduleFireView["outcome"],
    runId: row.runId,
    run: row.runId && status ? { id: row.runId, status } : null,
    error: (row.error as ScheduleFireView["error"]) ?? null,
    firedAt: row.createdAt.toISOString(),
  };
}

/** The pattern in its time zone; 400 validation-failed at `/cron` or `/timezone` when either is not valid. */
export function parseCron(cron: string, timezone: string): Cron {
  const issues: Issue[] = [];
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
  } catch {
    issues.push({ path: "/timezone", message: `${JSON.stringify(timezone)} is not an IANA time zone (e.g. "Europe/Berlin", "UTC")` });
  }
  let pattern: Cron | null = null;
  try {
    pattern = new Cron(cron, { timezone: issues.length ? undefined : timezone, paused: true });
  } catch (error) {
    issues.push({ path: "/cron", message: `not a cron pattern: ${(error as Error).message}` });
  }
  if (pattern && !issues.length && !pattern.nextRun()) issues.push({ path: "/cron", message: "the pattern never fires again" });
  if (issues.length || !pattern) throw new AppError("validation-failed", issues.map((issue) => `${issue.path} ${issue.message}`).join("; "), { issues });
  return pattern;
}

/** The first tick strictly after `after`, or null when the pattern has none. */
function tickAfter(row: Pick<Schedule, "cron" | "timezone">, after: Date): Date | null {
  return new Cron(row.cron, { timezone: row.timezone, paused: true }).nextRun(after);
}

/** POST /v1/schedules. */
export async function createSchedule(actor: Actor, input: CreateScheduleInput): Promise<ScheduleView> {
  const pattern = parseCron(input.cron, input.timezone);
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const resolved = await resolveTriggerAgent(tx, actor, { projectId: input.projectId, agent: input.agent, parameters: input.input.parameters, toolsAllowedUnattended: input.toolsAllowedUnattended });
    const row = await tx.schedule.create({
      data: {
        tenantId: actor.tenantId,
        projectId: resolved.projectId,
        name: input.name,
        cron: input.cron,
        timezone: input.timezone,
        agentId: input.agent.id,
        agentVersion: input.agent.version ?? null,
        userMessage: input.input.userMessage,
        parameters: (input.input.parameters ?? {}) as Prisma.InputJsonValue,
        toolsAllowedUnattended: input.toolsAllowedUnattended ?? [],
        status: "active",
        nextFireAt: pattern.nextRun(),
        createdBy: actor.userId,
      },
    });
    await audit(tx, actor, { action: "schedule.created", subjectType: "schedule", subjectId: row.id, projectId: row.projectId, data: { name: row.name, cron: row.cron, timezone: row.timezone, agentId: row.agentId, toolsAllowedUnattended: row.toolsAllowedUnattended } });
    if (row.toolsAllowedUnattended.length) await audit(tx, actor, { action: "schedule.tools-allowed-unattended-set", subjectType: "schedule", subjectId: row.id, projectId: row.projectId, data: { toolsAllowedUnattended: row.toolsAllowedUnattended } });
    return view(row);
  }).finally(() => setTimeout(wakeScheduler, 0).unref());
}

export async function listSchedules(actor: Actor, filters: { projectId?: string; status?: TriggerStatus }, page: { limit: number; cursor?: string }): Promise<Page<ScheduleView>> {
  const db = await getDb();
  const rows = await db.schedule.findMany({
    where: { tenantId: actor.tenantId, ...projectFilter(actor, filters.projectId?.toLowerCase()), ...(filters.status ? { status: filters.status } : { status: { not: "unregistered" } }), ...newestFirstWhere(page.cursor) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.limit + 1,
  });
  return newestFirstPage(rows, page.limit, view);
}

async function findSchedule(tx: DbTx, actor: Actor, scheduleId: string): Promise<Schedule> {
  const row = await tx.schedule.findFirst({ where: { id: scheduleId, tenantId: actor.tenantId, ...projectFilter(actor) } });
  if (!row) throw notFound("schedule", scheduleId);
  return row;
}

export async function getSchedule(actor: Actor, scheduleId: string): Promise<ScheduleView> {
  return view(await findSchedule(await getDb(), actor, scheduleId));
}

/** POST /v1/schedules/{id}/pause | resume | unregister. Resuming fires from the next tick after now (no catch-up). */
export async function setScheduleStatus(actor: Actor, scheduleId: string, action: "pause" | "resume" | "unregister"): Promise<ScheduleView> {
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const row = await findSchedule(tx, actor, scheduleId);
    requireTriggerWrite(actor, row.projectId, { setsToolsAllowedUnattended: false });
    const status = nextTriggerStatus(row.status, action, "schedule", row.id);
    if (status === row.status) return view(row);
    const nextFireAt = status === "active" ? tickAfter(row, new Date()) : null;
    const updated = await tx.schedule.update({ where: { id: row.id }, data: { status, nextFireAt } });
    await audit(tx, actor, { action: `schedule.${action === "pause" ? "paused" : action === "resume" ? "resumed" : "unregistered"}`, subjectType: "schedule", subjectId: row.id, projectId: row.projectId });
    return view(updated);
  }).finally(() => setTimeout(wakeScheduler, 0).unref());
}

/** GET /v1/schedules/{id}/fires, newest first. */
export async function listScheduleFires(actor: Actor, scheduleId: string, page: { limit: number; cursor?: string }): Promise<Page<ScheduleFireView>> {
  const db = await getDb();
  const schedule = await findSchedule(db, actor, scheduleId);
  const rows = await db.scheduleFire.findMany({ where: { scheduleId: schedule.id, ...newestFirstWhere(page.cursor) }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: page.limit + 1 });
  const statuses = await runStatuses(db, actor.tenantId, rows.map((row) => row.runId));
  return newestFirstPage(rows, page.limit, (row) => fireView(row, statuses));
}

/**
 * Fires one due schedule if this process wins its tick: claims it (compare-and-set of `nextFireAt`, fire row with
 * the unique (scheduleId, tick)), then starts the run as the owner, unattended, and records the outcome.
 */
async function fireSchedule(schedule: Schedule, now: Date): Promise<void> {
  const db = await getDb();
  const tick = schedule.nextFireAt;
  if (!tick) return;
  const following = tickAfter(schedule, tick);
  const missed = following !== null && following.getTime() <= now.getTime();
  const next = tickAfter(schedule, now);
  let fire: ScheduleFire | null;
  try {
    fire = await db.$transaction(async (tx) => {
      const { count } = await tx.schedule.updateMany({ where: { id: schedule.id, status: "active", nextFireAt: tick }, data: { nextFireAt: next } });
      if (count === 0) return null;
      return tx.scheduleFire.create({ data: { tenantId: schedule.tenantId, scheduleId: schedule.id, tick, missed, outcome: "pending" } });
    });
  } catch (error) {
    // Another process wrote the same (scheduleId, tick) first: it fires this tick.
    if ((error as { code?: string }).code === "P2002") return;
    throw error;
  }
  if (!fire) return;
  try {
    const actor = await triggerOwnerActor(db, schedule, "schedule");
    const result = await createRun(
      actor,
      { agent: { id: schedule.agentId, ...(schedule.agentVersion ? { version: schedule.agentVersion } : {}) }, input: { userMessage: schedule.userMessage, parameters: (schedule.parameters ?? {}) as Record<string, unknown> }, options: { wait: false } },
      { origin: { kind: "schedule", userId: actor.userId, scheduleId: schedule.id, fireId: fire.id }, toolsAllowedUnattended: schedule.toolsAllowedUnattended },
    );
    const runId = "id" in result.body ? result.body.id : null;
    await db.scheduleFire.update({ where: { id: fire.id }, data: { outcome: "started", runId } });
  } catch (error) {
    await db.scheduleFire.update({ where: { id: fire.id }, data: { outcome: "failed", error: failureOf(error) } });
  }
}

/** Fires every schedule whose tick has come (a bounded batch per pass). */
export async function fireDueSchedules(now = new Date()): Promise<number> {
  const db = await getDb();
  const due = await db.schedule.findMany({ where: { status: "active", nextFireAt: { lte: now } }, orderBy: { nextFireAt: "asc" }, take: 50 });
  for (const schedule of due) {
    await fireSchedule(schedule, now).catch((error) => log.error("a schedule could not fire", { scheduleId: schedule.id, tenantId: schedule.tenantId, err: error }));
  }
  return due.length;
}

const holder = globalThis as unknown as { kindgiScheduler?: BackgroundLoop };

/** Runs a scheduler pass now (a schedule created or resumed in this process may be due before the next pass). */
function wakeScheduler(): void {
  holder.kindgiScheduler?.wake();
}

/**
 * Starts the scheduler loop of this process: it fires the schedules whose tick has come, then sleeps until the
 * soonest next tick, at most KINDGI_SCHEDULER_POLL_MS (default 1000 ms: what a schedule created on another replica
 * may wait), so a per-second pattern fires within a few milliseconds of its tick while an idle server asks little.
 */
export function startScheduler(): void {
  if (holder.kindgiScheduler) return;
  const maxSleepMs = Math.max(50, Number(process.env.KINDGI_SCHEDULER_POLL_MS) || 1000);
  holder.kindgiScheduler = startBackgroundLoop("scheduler", maxSleepMs, async () => {
    // A pass with nothing due (most of them) asks one question: when is the soonest tick.
    let soonest = await soonestTick();
    if (soonest !== null && soonest <= Date.now()) {
      await fireDueSchedules();
      soonest = await soonestTick();
    }
    return soonest !== null ? Math.min(maxSleepMs, Math.max(5, soonest - Date.now() + 5)) : null;
  });
}

/** When the soonest active schedule's next tick is (epoch ms), or null when none is active. */
async function soonestTick(): Promise<number | null> {
  const db = await getDb();
  const soonest = await db.schedule.findFirst({ where: { status: "active", nextFireAt: { not: null } }, orderBy: { nextFireAt: "asc" }, select: { nextFireAt: true } });
  return soonest?.nextFireAt?.getTime() ?? null;
}
