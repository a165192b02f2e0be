import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listScheduleFiresOperation } from "@/lib/api/operations/triggers";
import { listScheduleFires } from "@/lib/services/schedules";

export const dynamic = "force-dynamic";

// GET /v1/schedules/{scheduleId}/fires – the schedule's fires and their runs
export const GET = route(listScheduleFiresOperation, async ({ actor, params, query }) => ok(await listScheduleFires(actor, params.scheduleId, pageParams(query))));
