import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getScheduleOperation } from "@/lib/api/operations/triggers";
import { getSchedule } from "@/lib/services/schedules";

export const dynamic = "force-dynamic";

// GET /v1/schedules/{scheduleId} – a schedule
export const GET = route(getScheduleOperation, async ({ actor, params }) => ok(await getSchedule(actor, params.scheduleId)));
