import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pauseScheduleOperation } from "@/lib/api/operations/triggers";
import { setScheduleStatus } from "@/lib/services/schedules";

export const dynamic = "force-dynamic";

// POST /v1/schedules/{scheduleId}/pause – pause a schedule
export const POST = route(pauseScheduleOperation, async ({ actor, params }) => ok(await setScheduleStatus(actor, params.scheduleId, "pause")));
