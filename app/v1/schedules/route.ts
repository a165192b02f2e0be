import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { createScheduleOperation, listSchedulesOperation } from "@/lib/api/operations/triggers";
import { createSchedule, listSchedules, type CreateScheduleInput } from "@/lib/services/schedules";
import type { TriggerStatus } from "@/lib/services/triggers";

export const dynamic = "force-dynamic";

// GET /v1/schedules – the schedules of the caller's projects
export const GET = route(listSchedulesOperation, async ({ actor, query }) => ok(await listSchedules(actor, { projectId: query.projectId as string | undefined, status: query.status as TriggerStatus | undefined }, pageParams(query))));

// POST /v1/schedules – create a schedule that starts unattended runs
export const POST = route(createScheduleOperation, async ({ actor, body }) => created(await createSchedule(actor, body as CreateScheduleInput)));
