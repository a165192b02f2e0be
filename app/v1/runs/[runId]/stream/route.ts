import { route } from "@/lib/api/route";
import { eventStream } from "@/lib/api/sse";
import { streamRunOperation } from "@/lib/api/operations/runs";
import { seqFromLastEventId, watchRun } from "@/lib/services/runs";

export const dynamic = "force-dynamic";

// GET /v1/runs/{runId}/stream – the journal as server-sent events, resumable with Last-Event-ID, with the model's words live
export const GET = route(streamRunOperation, async ({ actor, params, query, request }) => {
  const since = seqFromLastEventId(params.runId, request.headers.get("last-event-id")) ?? (query.since as number | undefined) ?? 0;
  const events = watchRun(actor, params.runId, since, request.signal, { deltas: true });
  // Access is checked before the stream starts, so a foreign or unknown run is a JSON 404, not an empty stream.
  const first = await events.next();
  return eventStream(params.runId, first, events, request.signal);
});
