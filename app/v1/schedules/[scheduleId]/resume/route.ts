import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { resumeScheduleOperation } from "@/lib/api/operations/triggers";
import { setScheduleStatus } from "@/lib/services/schedules";

export const dynamic = "force-dynamic";

// POST /v1/schedules/{scheduleId}/resume – resume a schedule
export const POST = route(resumeScheduleOperation, async ({ actor, params }) => ok(await setScheduleStatus(actor, params.scheduleId, "resume")));
