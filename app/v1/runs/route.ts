import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { createRunOperation, listRunsOperation } from "@/lib/api/operations/runs";
import { eventStream } from "@/lib/api/sse";
import { acceptsEventStream } from "@/lib/api/respond";
import { createRun, listRuns, watchRun, type CreateRunInput, type RunFilters, type RunStreamItem } from "@/lib/services/runs";

export const dynamic = "force-dynamic";

// POST /v1/runs – run one turn of an agent (201 settled, 202 accepted, 200 dry run; with Accept: text/event-stream,
// started and streamed in the same response)
export const POST = route(createRunOperation, async ({ actor, body, request }) => {
  const input = body as CreateRunInput;
  const streamed = acceptsEventStream(request) && input.options?.dryRun !== true;
  if (!streamed) return createRun(actor, input);
  // The watch is opened before the run starts, so the client hears every word of its first model call.
  let items: AsyncGenerator<RunStreamItem> | undefined;
  const result = await createRun(actor, { ...input, options: { ...input.options, wait: false } }, undefined, { beforeStart: (runId, lastSeq) => (items = watchRun(actor, runId, 0, request.signal, { deltas: true, openedAt: lastSeq })) });
  if (result.status === 200 || !items) return result;
  const runId = result.body.id;
  const first = await items.next();
  return { status: result.status, body: result.body, response: eventStream(runId, first, items, request.signal, { status: result.status, headers: { Location: `/v1/runs/${runId}` } }) };
});

// GET /v1/runs – newest first, filtered by status, kind, agent, tool, conversation, project, origin
export const GET = route(listRunsOperation, async ({ actor, query }) =>
  ok(await listRuns(actor, { status: query.status, kind: query.kind, agentId: query.agentId, toolId: query.toolId, conversationId: query.conversationId, projectId: query.projectId, origin: query.origin } as RunFilters, pageParams(query))),
);
