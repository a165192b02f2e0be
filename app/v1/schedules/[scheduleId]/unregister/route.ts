import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { unregisterScheduleOperation } from "@/lib/api/operations/triggers";
import { setScheduleStatus } from "@/lib/services/schedules";

export const dynamic = "force-dynamic";

// POST /v1/schedules/{scheduleId}/unregister – unregister a schedule
export const POST = route(unregisterScheduleOperation, async ({ actor, params }) => ok(await setScheduleStatus(actor, params.scheduleId, "unregister")));
