/**
 * `POST /v1/responses` and `GET /v1/responses/{id}` (DESIGN.md §9): an agent's turn as an OpenAI Response. A
 * response is a run (`resp_<runId>`); every response runs in a conversation — `previous_response_id` continues the
 * previous response's, `conversation` names one, else one is opened (holding the earlier input messages as history).
 * The output is built from the run's journal (lib/doors/openai/response-builder.ts); a call that waits for a person
 * ends the response (completed) with an `mcp_approval_request` item. Streamed, the standard events carry the model's
 * words as they are written.
 */
import { AppError, type Issue } from "@/lib/errors";
import type { ApiResult } from "@/lib/api/respond";
import type { Actor } from "@/lib/services/actor";
import { listApprovals } from "@/lib/services/approvals";
import { openAiProject, resolveAgentModel } from "@/lib/services/agent-models";
import { openConversation } from "@/lib/services/conversations";
import { createRun, getJournal, getRun, listRuns, watchRun, type RunStreamItem, type RunView } from "@/lib/services/runs";
import type { JournalEvent } from "@/lib/kernel/types";
import { frameStream } from "@/lib/doors/openai/sse";
import { ResponseBuilder, responseIdOf, runIdOfResponse, type ResponseFrame, type StreamEvent } from "@/lib/doors/openai/response-builder";

export type CreateResponseBody = {
  model: string;
  input: unknown;
  stream?: boolean | null;
  previous_response_id?: string | null;
  conversation?: string | { id?: unknown } | null;
  background?: boolean | null;
  store?: boolean | null;
  parameters?: Record<string, unknown> | null;
  tools?: unknown;
  tool_choice?: unknown;
};

type Message = { role: "user" | "assistant"; content: string };

/** An input item's text: a string, or `input_text` / `output_text` / `text` parts; null for any other content. */
function contentText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const parts: string[] = [];
  for (const part of content) {
    const entry = part as { type?: unknown; text?: unknown } | null;
    if (!entry || typeof entry.text !== "string" || !["input_text", "output_text", "text"].includes(String(entry.type))) return null;
    parts.push(entry.text);
  }
  return parts.join("");
}

/** The turn's input (the last user message) and the messages before it. */
function messagesOf(body: CreateResponseBody): { userMessage: string; history: Message[] } {
  const issues: Issue[] = [];
  for (const field of ["tools", "tool_choice"] as const) {
    if (body[field] !== undefined && body[field] !== null && !(Array.isArray(body[field]) && (body[field] as unknown[]).length === 0)) issues.push({ path: `/${field}`, message: "is not accepted: the agent's own tools run on this server" });
  }
  if (body.background === true) issues.push({ path: "/background", message: "background responses are not served yet: send the request without it (or stream it)" });
  let messages: Message[] = [];
  if (typeof body.input === "string") messages = [{ role: "user", content: body.input }];
  else if (Array.isArray(body.input)) {
    body.input.forEach((raw, index) => {
      const item = raw as { type?: unknown; role?: unknown; content?: unknown } | null;
      if (!item || typeof item !== "object" || (item.type !== undefined && item.type !== "message")) {
        issues.push({ path: `/input/${index}/type`, message: `${JSON.stringify(item?.type)} is not accepted: send message items (approval responses are not served yet)` });
        return;
      }
      if (item.role === "system" || item.role === "developer") return;
      const text = contentText(item.content);
      if ((item.role !== "user" && item.role !== "assistant") || text === null) {
        issues.push({ path: `/input/${index}`, message: "must be a user or assistant message whose content is a string or text parts" });
        return;
      }
      messages.push({ role: item.role, content: text });
    });
  } else issues.push({ path: "/input", message: "must be a string or a list of message items" });
  const last = messages[messages.length - 1];
  if (!issues.length && (!last || last.role !== "user" || last.content.trim() === "")) issues.push({ path: "/input", message: "must end with the user's message: it is the turn's input" });
  if (issues.length) throw new AppError("validation-failed", `the request cannot be served: ${issues.map((issue) => `${issue.path} ${issue.message}`).join("; ")}`, { issues });
  return { userMessage: last.content, history: messages.slice(0, -1) };
}

/** The conversation a response continues, or null when it starts one. */
async function continuedConversation(actor: Actor, body: CreateResponseBody): Promise<string | null> {
  if (body.previous_response_id) {
    const runId = runIdOfResponse(body.previous_response_id);
    const previous = runId ? await getRun(actor, runId).catch(() => null) : null;
    if (!previous) throw new AppError("not-found", `response ${JSON.stringify(body.previous_response_id)} is not one of this server's`, { issues: [{ path: "/previous_response_id", message: "is no response of this server" }] });
    if (!previous.conversationId) throw new AppError("bad-input", `response ${body.previous_response_id} has no conversation to continue`, { issues: [{ path: "/previous_response_id", message: "has no conversation" }] });
    return previous.conversationId;
  }
  const conversation = body.conversation;
  if (typeof conversation === "string") return conversation;
  if (conversation && typeof conversation === "object" && typeof conversation.id === "string") return conversation.id;
  return null;
}

async function startResponse(actor: Actor, request: Request, body: CreateResponseBody, stream: boolean, hooks?: { beforeStart?: (runId: string, lastSeq: number) => void }): Promise<RunView> {
  const { userMessage, history } = messagesOf(body);
  const projectId = await openAiProject(actor, request.headers.get("openai-project"));
  const agent = await resolveAgentModel(actor, projectId, body.model);
  let conversationId = await continuedConversation(actor, body);
  if (conversationId && history.length) throw new AppError("validation-failed", "a response that continues a conversation takes only the new user message as input", { issues: [{ path: "/input", message: "must hold only the new user message" }] });
  // A pinned model (`id@range`) must match the conversation's version; a bare id follows the conversation.
  const pinned = body.model.includes("@") || !conversationId;
  conversationId ??= (await openConversation(actor, { agent: { id: agent.agentId, version: agent.version }, title: "OpenAI response", history })).id;
  const created = await createRun(
    actor,
    { agent: { id: agent.agentId, ...(pinned ? { version: agent.version } : {}) }, input: { userMessage, conversationId, ...(body.parameters ? { parameters: body.parameters } : {}) }, options: { wait: !stream } },
    undefined,
    hooks,
  );
  if (created.status === 200) throw new AppError("bad-input", "a dry run cannot be asked for through the responses route");
  return created.body;
}

/** The response before `run` in its conversation, as `previous_response_id`. */
async function previousOf(actor: Actor, run: RunView): Promise<string | null> {
  if (!run.conversationId) return null;
  const runs = await listRuns(actor, { conversationId: run.conversationId } as Parameters<typeof listRuns>[1], { limit: 100 });
  const earlier = runs.data.filter((candidate) => candidate.createdAt < run.createdAt || (candidate.createdAt === run.createdAt && candidate.id < run.id));
  return earlier.length ? responseIdOf(earlier[0].id) : null;
}

const frameOf = (run: RunView, model: string, previous: string | null): ResponseFrame => ({ runId: run.id, model, createdAt: run.createdAt, previousResponseId: previous, conversationId: run.conversationId, background: false });

/** The pending approvals of a waiting run, as request items. */
async function addApprovalRequests(actor: Actor, run: RunView, builder: ResponseBuilder): Promise<void> {
  const pending = await listApprovals(actor, { runId: run.id, status: "pending" }, { limit: 50 });
  for (const approval of pending.data) builder.approvalRequest({ id: approval.id, name: approval.tool?.id ?? "session", arguments: approval.arguments });
}

/** A stored response: the run's journal read through the builder. */
async function storedResponse(actor: Actor, run: RunView, model: string, previous: string | null): Promise<Record<string, unknown>> {
  const builder = new ResponseBuilder(frameOf(run, model, previous));
  const events: JournalEvent[] = [];
  for (let since = 0; ; ) {
    const page = await getJournal(actor, run.id, since, 1000);
    events.push(...page.data);
    if (!page.hasMore || page.data.length === 0) break;
    since = page.data[page.data.length - 1].seq;
  }
  for (const event of events) builder.event(event);
  if (run.status === "suspended") await addApprovalRequests(actor, run, builder);
  if (run.status === "running" || run.status === "pending") builder.status = "in_progress";
  else builder.finish();
  return builder.response();
}

/** POST /v1/responses. */
export async function createResponse(actor: Actor, request: Request, body: CreateResponseBody): Promise<ApiResult> {
  const previous = body.previous_response_id ?? null;
  if (body.stream === true) return streamResponse(actor, request, body, previous);
  const run = await startResponse(actor, request, body, false);
  return { status: 200, headers: { "X-Kindgi-Run-Id": run.id }, body: await storedResponse(actor, run, body.model, previous) };
}

/** GET /v1/responses/{id}. */
export async function getResponse(actor: Actor, responseId: string): Promise<ApiResult> {
  const runId = runIdOfResponse(responseId);
  const run = runId ? await getRun(actor, runId).catch(() => null) : null;
  if (!run || run.kind !== "agent-turn" || !run.agent) throw new AppError("not-found", `response ${JSON.stringify(responseId)} not found`);
  return { status: 200, body: await storedResponse(actor, run, run.agent.id, await previousOf(actor, run)) };
}

async function streamResponse(actor: Actor, request: Request, body: CreateResponseBody, previous: string | null): Promise<ApiResult> {
  let items: AsyncGenerator<RunStreamItem> | undefined;
  const started = await startResponse(actor, request, body, true, { beforeStart: (runId, lastSeq) => (items = watchRun(actor, runId, 0, request.signal, { deltas: true, openedAt: lastSeq })) });
  const watch = items as AsyncGenerator<RunStreamItem>;
  const queue: StreamEvent[] = [];
  const builder = new ResponseBuilder(frameOf(started, body.model, previous), (event) => queue.push(event));
  const format = (event: StreamEvent) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
  async function* frames(): AsyncGenerator<string> {
    builder.start();
    let waiting = false;
    try {
      for await (const item of watch) {
        if (item.delta) builder.delta(item.delta);
        else {
          builder.event(item.event);
          if (item.event.type === "approval-requested" || item.event.type === "wait-started") waiting = true;
        }
        while (queue.length) yield format(queue.shift() as StreamEvent);
        if (waiting || (item.event && ["run-completed", "run-failed", "run-cancelled"].includes(item.event.type))) break;
      }
    } finally {
      await watch.return(undefined);
    }
    if (waiting) await addApprovalRequests(actor, await getRun(actor, started.id), builder);
    builder.finish();
    while (queue.length) yield format(queue.shift() as StreamEvent);
  }
  const replay = { id: responseIdOf(started.id), object: "response", status: "in_progress", model: body.model, metadata: { runId: started.id } };
  return { status: 200, body: replay, response: frameStream(frames(), request.signal, started.id, "response") };
}
