/**
 * `POST /v1/responses`, `GET /v1/responses/{id}` and `POST /v1/responses/{id}/cancel` (DESIGN.md §9): an agent's
 * turn as OpenAI Responses. A run's first response is `resp_<runId>`; every response runs in a conversation —
 * `previous_response_id` continues the previous response's, `conversation` names one, else one is opened (holding the
 * earlier input messages as history). The output is built from the run's journal (response-builder.ts).
 *
 * A call that waits for a person ends the response (completed) with an `mcp_approval_request` item. A follow-up with
 * `previous_response_id` and `mcp_approval_response` items decides the approvals as the key's person and is the next
 * response of the same run (`resp_<runId>_<seq>`): the rest of the turn, up to its end or its next wait. The inbox
 * can decide the same approvals; whichever decides first wins, and the follow-up shows what became of the call.
 */
import { AppError, isAppError, type Issue } from "@/lib/errors";
import type { ApiResult } from "@/lib/api/respond";
import type { Actor } from "@/lib/services/actor";
import { checkApprovalDecision, completeApproval, listApprovals, type CompleteApprovalInput } from "@/lib/services/approvals";
import { openAiProject, resolveAgentModel } from "@/lib/services/agent-models";
import { openConversation } from "@/lib/services/conversations";
import { responsesOriginOf, type ResponsesStart, type RunOrigin } from "@/lib/services/run-origin";
import { cancelRun, createRun, getJournal, getRun, listRuns, waitUntilSettled, watchRun, type RunStreamItem, type RunView } from "@/lib/services/runs";
import { isTerminalEvent, isTerminalStatus, type JournalEvent } from "@/lib/kernel/types";
import { frameStream } from "@/lib/doors/openai/sse";
import {
  endOf,
  lastStartOf,
  parseResponseId,
  ResponseBuilder,
  responseIdOf,
  waitPoints,
  type AskedApproval,
  type ResponseFrame,
  type StreamEvent,
} from "@/lib/doors/openai/response-builder";

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

/** An `mcp_approval_response` input item, checked: the decision it asks for, and where it is in the input. */
type ApprovalAnswer = { index: number; approvalId: string; decision: CompleteApprovalInput };

/** What a request's input asks: a new turn, or decisions on the approvals the previous response ended with. */
type ParsedInput = { kind: "turn"; userMessage: string; history: Message[] } | { kind: "approvals"; answers: ApprovalAnswer[] };

/** How long a request that is not streamed waits for the run to reach its end or its next wait. */
const WAIT_MS = 10 * 60_000;

/** Items a client may send back from an earlier output alongside its approval responses (stateless clients do). */
const ECHOED_ITEM_TYPES = new Set(["mcp_approval_request", "mcp_call", "mcp_list_tools"]);

const invalid = (issues: Issue[]) => new AppError("validation-failed", `the request cannot be served: ${issues.map((issue) => `${issue.path} ${issue.message}`).join("; ")}`, { issues });

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

/** An `mcp_approval_response` item as a decision (`arguments` and `remember` are this server's extensions). */
function approvalAnswerOf(raw: Record<string, unknown>, index: number, issues: Issue[]): ApprovalAnswer | null {
  const at = (field: string) => `/input/${index}/${field}`;
  const before = issues.length;
  const id = raw.approval_request_id;
  if (typeof id !== "string" || id.length === 0 || id.length > 200) issues.push({ path: at("approval_request_id"), message: "must be the id of an mcp_approval_request item" });
  if (typeof raw.approve !== "boolean") issues.push({ path: at("approve"), message: "must be true or false" });
  if (raw.reason !== undefined && raw.reason !== null && (typeof raw.reason !== "string" || raw.reason.length > 2000)) issues.push({ path: at("reason"), message: "must be a string of at most 2000 characters" });
  let edited: Record<string, unknown> | undefined;
  if (raw.arguments !== undefined && raw.arguments !== null) {
    let value: unknown = raw.arguments;
    if (typeof value === "string") {
      try {
        value = JSON.parse(value);
      } catch {
        value = undefined;
      }
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) issues.push({ path: at("arguments"), message: "must be the edited arguments: a JSON object, or a string holding one" });
    else edited = value as Record<string, unknown>;
  }
  let remember: CompleteApprovalInput["remember"];
  if (raw.remember !== undefined && raw.remember !== null && raw.remember !== false) {
    const condition = (raw.remember as { condition?: unknown } | null)?.condition;
    if (raw.remember === true) remember = true;
    else if (typeof raw.remember === "object" && !Array.isArray(raw.remember) && (typeof condition === "boolean" || (typeof condition === "object" && condition !== null && !Array.isArray(condition)))) remember = { condition: condition as Record<string, unknown> | boolean };
    else issues.push({ path: at("remember"), message: "must be true, or {condition} with a JSON Schema the call's arguments must match" });
  }
  if (raw.approve === false && (edited !== undefined || remember !== undefined)) issues.push({ path: at(edited !== undefined ? "arguments" : "remember"), message: "goes with approve: true only" });
  if (issues.length > before) return null;
  const decision: CompleteApprovalInput = { decision: raw.approve ? "approve" : "reject", ...(typeof raw.reason === "string" && raw.reason ? { rationale: raw.reason } : {}), ...(edited ? { arguments: edited } : {}), ...(remember !== undefined ? { remember } : {}) };
  return { index, approvalId: id as string, decision };
}

/** The request's input: the turn's (the last user message and the messages before it), or approval responses. */
function parseInput(body: CreateResponseBody): ParsedInput {
  const issues: Issue[] = [];
  for (const field of ["tools", "tool_choice"] as const) {
    if (body[field] !== undefined && body[field] !== null && !(Array.isArray(body[field]) && (body[field] as unknown[]).length === 0)) issues.push({ path: `/${field}`, message: "is not accepted: the agent's own tools run on this server" });
  }
  if (typeof body.input === "string") {
    if (issues.length) throw invalid(issues);
    if (body.input.trim() === "") throw invalid([{ path: "/input", message: "must be the user's message: it is the turn's input" }]);
    return { kind: "turn", userMessage: body.input, history: [] };
  }
  if (!Array.isArray(body.input)) throw invalid([...issues, { path: "/input", message: "must be a string or a list of input items" }]);
  const items = body.input as unknown[];
  const answering = items.some((raw) => (raw as { type?: unknown } | null)?.type === "mcp_approval_response");
  const messages: Message[] = [];
  const answers: ApprovalAnswer[] = [];
  items.forEach((raw, index) => {
    const item = raw as { type?: unknown; role?: unknown; content?: unknown } | null;
    if (!item || typeof item !== "object" || Array.isArray(item)) {
      issues.push({ path: `/input/${index}`, message: "must be an input item (an object)" });
      return;
    }
    if (item.type === "mcp_approval_response") {
      const answer = approvalAnswerOf(item as Record<string, unknown>, index, issues);
      if (answer) answers.push(answer);
      return;
    }
    if (answering && typeof item.type === "string" && ECHOED_ITEM_TYPES.has(item.type)) return;
    if (item.type !== undefined && item.type !== "message") {
      issues.push({ path: `/input/${index}/type`, message: `${JSON.stringify(item.type)} is not accepted: send message items, or mcp_approval_response items` });
      return;
    }
    if (item.role === "system" || item.role === "developer") return;
    if (answering) {
      if (item.role !== "assistant") issues.push({ path: `/input/${index}`, message: "an approval response continues the previous response's turn: send a new user message in a later response" });
      return;
    }
    const text = contentText(item.content);
    if ((item.role !== "user" && item.role !== "assistant") || text === null) {
      issues.push({ path: `/input/${index}`, message: "must be a user or assistant message whose content is a string or text parts" });
      return;
    }
    messages.push({ role: item.role, content: text });
  });
  if (answering) {
    if (!body.previous_response_id) issues.push({ path: "/previous_response_id", message: "must name the response whose approval requests are answered" });
    if (body.background === true) issues.push({ path: "/background", message: "an approval response continues a turn in the request: send it without background" });
    if (issues.length) throw invalid(issues);
    return { kind: "approvals", answers };
  }
  const last = messages[messages.length - 1];
  if (!issues.length && (!last || last.role !== "user" || last.content.trim() === "")) issues.push({ path: "/input", message: "must end with the user's message: it is the turn's input" });
  if (issues.length) throw invalid(issues);
  return { kind: "turn", userMessage: last.content, history: messages.slice(0, -1) };
}

/** How the Responses API started a run (its origin), or null for a run started another way. */
const responsesStartOf = (run: RunView): ResponsesStart | null => (run.origin as (RunOrigin & { openai?: ResponsesStart }) | null)?.openai ?? null;

/** The run a response id names, as the Responses API serves it: 404 for another tenant's, a tool invocation, or a `store: false` one. */
async function responseRun(actor: Actor, responseId: string, field?: string): Promise<{ run: RunView; from: number }> {
  const parsed = parseResponseId(responseId);
  const run = parsed ? await getRun(actor, parsed.runId).catch(() => null) : null;
  if (!parsed || !run || run.kind !== "agent-turn" || !run.agent || responsesStartOf(run)?.store === false) {
    const hidden = run && responsesStartOf(run)?.store === false ? " (it was created with store: false)" : "";
    throw new AppError("not-found", `response ${JSON.stringify(responseId)} not found${hidden}`, field ? { issues: [{ path: field, message: "is no stored response of this server" }] } : undefined);
  }
  return { run, from: parsed.from };
}

/** The conversation a response continues, or null when it starts one. */
async function continuedConversation(actor: Actor, body: CreateResponseBody): Promise<string | null> {
  if (body.previous_response_id) {
    const { run } = await responseRun(actor, body.previous_response_id, "/previous_response_id");
    if (!run.conversationId) throw new AppError("bad-input", `response ${body.previous_response_id} has no conversation to continue`, { issues: [{ path: "/previous_response_id", message: "has no conversation" }] });
    return run.conversationId;
  }
  const conversation = body.conversation;
  if (typeof conversation === "string") return conversation;
  if (conversation && typeof conversation === "object" && typeof conversation.id === "string") return conversation.id;
  return null;
}

/** The origin a new run gets: how the Responses API started it. */
function startOf(body: CreateResponseBody): ResponsesStart {
  return { api: "responses", ...(body.background === true ? { background: true as const } : {}), ...(body.store === false ? { store: false as const } : {}) };
}

async function startResponse(actor: Actor, request: Request, body: CreateResponseBody, input: Extract<ParsedInput, { kind: "turn" }>, wait: boolean, hooks?: { beforeStart?: (runId: string, lastSeq: number) => void }): Promise<RunView> {
  const { userMessage, history } = input;
  const projectId = await openAiProject(actor, request.headers.get("openai-project"));
  const agent = await resolveAgentModel(actor, projectId, body.model);
  let conversationId = await continuedConversation(actor, body);
  if (conversationId && history.length) throw invalid([{ path: "/input", message: "must hold only the new user message: the response continues a conversation" }]);
  // A pinned model (`id@range`) must match the conversation's version; a bare id follows the conversation.
  const pinned = body.model.includes("@") || !conversationId;
  conversationId ??= (await openConversation(actor, { agent: { id: agent.agentId, version: agent.version }, title: "OpenAI response", history })).id;
  const created = await createRun(
    actor,
    { agent: { id: agent.agentId, ...(pinned ? { version: agent.version } : {}) }, input: { userMessage, conversationId, ...(body.parameters ? { parameters: body.parameters } : {}) }, options: { wait } },
    { origin: responsesOriginOf(actor, startOf(body)) },
    hooks,
  );
  if (created.status === 200) throw new AppError("bad-input", "a dry run cannot be asked for through the responses route");
  return created.body;
}

/** The run's journal, whole. */
async function journalOf(actor: Actor, runId: string): Promise<JournalEvent[]> {
  const events: JournalEvent[] = [];
  for (let since = 0; ; ) {
    const page = await getJournal(actor, runId, since, 1000);
    events.push(...page.data);
    if (!page.hasMore || page.data.length === 0) return events;
    since = page.data[page.data.length - 1].seq;
  }
}

/** The run's approvals by id (what their request items show). */
async function approvalsOf(actor: Actor, runId: string, into = new Map<string, AskedApproval>()): Promise<Map<string, AskedApproval>> {
  for (let cursor: string | undefined; ; ) {
    const page = await listApprovals(actor, { runId }, { limit: 200, cursor });
    for (const approval of page.data) into.set(approval.id, { id: approval.id, callId: approval.callId, name: approval.tool?.id ?? "session", arguments: approval.arguments });
    if (!page.nextCursor) return into;
    cursor = page.nextCursor;
  }
}

/** The response before `run`'s first in its conversation (the last response of the run before it), as `previous_response_id`. */
async function previousOf(actor: Actor, run: RunView): Promise<string | null> {
  if (!run.conversationId) return null;
  const runs = await listRuns(actor, { conversationId: run.conversationId } as Parameters<typeof listRuns>[1], { limit: 100 });
  const earlier = runs.data.find((candidate) => candidate.createdAt < run.createdAt || (candidate.createdAt === run.createdAt && candidate.id < run.id));
  if (!earlier) return null;
  const events = await journalOf(actor, earlier.id);
  return responseIdOf(earlier.id, lastStartOf(waitPoints(events), events[events.length - 1]?.seq ?? 0));
}

function frameOf(run: RunView, from: number, model: string, previous: string | null, approvals: Map<string, AskedApproval>): ResponseFrame {
  const start = responsesStartOf(run);
  return { runId: run.id, from, model, createdAt: run.createdAt, previousResponseId: previous, conversationId: run.conversationId, background: start?.background === true, store: start?.store !== false, approvals };
}

/** The approvals still pending that an earlier response asked (the run waits for them: this response ends with them too). */
async function pendingAsked(actor: Actor, runId: string): Promise<AskedApproval[]> {
  const pending = await listApprovals(actor, { runId, status: "pending" }, { limit: 50 });
  return pending.data.map((approval) => ({ id: approval.id, callId: approval.callId, name: approval.tool?.id ?? "session", arguments: approval.arguments }));
}

/** The response that begins after `from` as it stands: the run's journal read through the builder. */
async function storedResponse(actor: Actor, runId: string, from: number, model: string | null, previous: string | null): Promise<Record<string, unknown>> {
  const run = await getRun(actor, runId);
  const events = await journalOf(actor, runId);
  const points = waitPoints(events);
  if (from > 0 && !points.includes(from)) throw new AppError("not-found", `response ${JSON.stringify(responseIdOf(runId, from))} not found`);
  const to = endOf(points, from);
  const builder = new ResponseBuilder(frameOf(run, from, model ?? run.agent?.id ?? "", previous, await approvalsOf(actor, runId)));
  for (const event of events) if (event.seq > from && (to === null || event.seq <= to)) builder.event(event);
  if (to !== null) builder.status = "completed";
  else if (run.status === "suspended") {
    for (const asked of await pendingAsked(actor, runId)) builder.approvalRequest(asked);
    // A run paused on a wait token (no person asked) is still at work.
    builder.status = builder.asksForApproval ? "completed" : "in_progress";
  } else if (run.status === "pending") builder.status = "queued";
  else if (run.status === "running") builder.status = "in_progress";
  return builder.response();
}

/** POST /v1/responses. */
export async function createResponse(actor: Actor, request: Request, body: CreateResponseBody): Promise<ApiResult> {
  const input = parseInput(body);
  if (body.background === true && body.store === false) throw invalid([{ path: "/store", message: "must not be false with background: a background response is polled, so it is stored" }]);
  if (input.kind === "approvals") return answerApprovals(actor, request, body, input.answers);
  const previous = body.previous_response_id ?? null;
  if (body.stream === true) {
    let watch: AsyncGenerator<RunStreamItem> | undefined;
    const started = await startResponse(actor, request, body, input, false, { beforeStart: (runId, lastSeq) => (watch = watchRun(actor, runId, 0, request.signal, { deltas: true, openedAt: lastSeq })) });
    return streamed(actor, request, started, 0, body.model, previous, watch as AsyncGenerator<RunStreamItem>, new Map());
  }
  const run = await startResponse(actor, request, body, input, body.background !== true);
  return { status: 200, headers: { "X-Kindgi-Run-Id": run.id }, body: await storedResponse(actor, run.id, 0, body.model, previous) };
}

/** A decision error as the request's: its issues at the input item that asked for it. */
function atItem(error: unknown, index: number): unknown {
  if (!isAppError(error)) return error;
  const issues = (error.details as { issues?: Issue[] } | undefined)?.issues;
  const field = error.code === "permission-denied" ? null : `/input/${index}`;
  if (!field) return error;
  const moved = Array.isArray(issues) && issues.length ? issues.map((issue) => ({ ...issue, path: `${field}${issue.path}` })) : [{ path: field, message: error.message }];
  return new AppError(error.code, error.message, { ...(error.details as object | undefined), issues: moved });
}

/** Another decision came first (the inbox, another client): the follow-up shows what became of the call. */
const decidedElsewhere = (error: unknown) => isAppError(error) && (error.code === "approval-already-decided" || error.code === "run-already-terminal");

/**
 * `mcp_approval_response` items: each decides one of the approvals the previous response ended with, as the key's
 * person (checked all first: a refused one decides none); the answer is the run's next response, streamed or not.
 */
async function answerApprovals(actor: Actor, request: Request, body: CreateResponseBody, answers: ApprovalAnswer[]): Promise<ApiResult> {
  const previousId = body.previous_response_id as string;
  const { run, from } = await responseRun(actor, previousId, "/previous_response_id");
  const events = await journalOf(actor, run.id);
  const points = waitPoints(events);
  if (from > 0 && !points.includes(from)) throw new AppError("not-found", `response ${JSON.stringify(previousId)} not found`, { issues: [{ path: "/previous_response_id", message: "is no stored response of this server" }] });
  const to = endOf(points, from);
  // What the previous response asked: its last wait's requests, or (when it ran to the journal's end) the ones still open.
  const asked = new Set(to === null ? (await pendingAsked(actor, run.id)).map((approval) => approval.id) : events.filter((event) => event.seq > from && event.seq <= to && event.type === "approval-requested").map((event) => (event.type === "approval-requested" ? event.data.approvalId : "")));
  const strays = answers.filter((answer) => !asked.has(answer.approvalId));
  if (strays.length) throw invalid(strays.map((answer) => ({ path: `/input/${answer.index}/approval_request_id`, message: `is not an approval request of response ${previousId}` })));
  for (const answer of answers) {
    await checkApprovalDecision(actor, answer.approvalId, answer.decision).catch((error: unknown) => {
      if (!decidedElsewhere(error)) throw atItem(error, answer.index);
    });
  }
  const next = to ?? from;
  const before = await getRun(actor, run.id);
  // Opened before the decisions, so the stream hears every word of the resumed turn.
  const watch = body.stream === true ? watchRun(actor, run.id, next, request.signal, { deltas: true, ...(before.status === "suspended" ? { openedAt: before.lastSeq } : {}) }) : null;
  try {
    for (const answer of answers) {
      await completeApproval(actor, answer.approvalId, answer.decision).catch((error: unknown) => {
        if (!decidedElsewhere(error)) throw atItem(error, answer.index);
      });
    }
  } catch (error) {
    await watch?.return(undefined);
    throw error;
  }
  // Some of the wait's approvals are still open: the run waits on; the response ends with them at once.
  const stillWaiting = (await pendingAsked(actor, run.id)).some((approval) => asked.has(approval.id));
  if (watch && !stillWaiting) return streamed(actor, request, await getRun(actor, run.id), next, body.model, previousId, watch, await approvalsOf(actor, run.id));
  await watch?.return(undefined);
  if (!stillWaiting) await waitUntilSettled(run.id, WAIT_MS);
  const response = await storedResponse(actor, run.id, next, body.model, previousId);
  if (!body.stream) return { status: 200, headers: { "X-Kindgi-Run-Id": run.id }, body: response };
  return { status: 200, body: response, response: frameStream(replayed(response), request.signal, run.id, "response") };
}

/** A response already whole, as the stream of events that builds it. */
async function* replayed(response: Record<string, unknown>): AsyncGenerator<string> {
  let sequence = 0;
  const frame = (type: string, fields: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
  yield frame("response.created", { response: { ...response, status: "in_progress", output: [] } });
  const output = response.output as Record<string, unknown>[];
  for (const [index, item] of output.entries()) {
    yield frame("response.output_item.added", { output_index: index, item });
    yield frame("response.output_item.done", { output_index: index, item });
  }
  yield frame(response.status === "failed" || response.status === "cancelled" ? "response.failed" : "response.completed", { response });
}

/** GET /v1/responses/{id}. */
export async function getResponse(actor: Actor, responseId: string): Promise<ApiResult> {
  const { run, from } = await responseRun(actor, responseId);
  const previous = from > 0 ? responseIdOf(run.id, waitPoints(await journalOf(actor, run.id)).filter((point) => point < from).pop() ?? 0) : await previousOf(actor, run);
  return { status: 200, body: await storedResponse(actor, run.id, from, null, previous) };
}

/**
 * POST /v1/responses/{id}/cancel: a background response's run is cancelled (its open approvals withdrawn); a response
 * already finished is answered as it is. A response that was not started in the background is 400, as OpenAI's.
 */
export async function cancelResponse(actor: Actor, responseId: string): Promise<ApiResult> {
  const { run, from } = await responseRun(actor, responseId);
  if (!responsesStartOf(run)?.background) throw new AppError("bad-input", `response ${responseId} was not created with background: true; only a background response can be cancelled (its run can: POST /v1/runs/${run.id}/cancel)`);
  if (!isTerminalStatus(run.status)) {
    await cancelRun(actor, run.id).catch((error: unknown) => {
      if (!(isAppError(error) && error.code === "run-already-terminal")) throw error;
    });
  }
  return getResponse(actor, responseIdOf(run.id, from));
}

/**
 * A response streamed from `watch` (the run's events after `from`, with the model's words): the standard events, up
 * to the run's end or its next wait for a person. A run paused on a wait token streams on until the answer comes.
 */
function streamed(actor: Actor, request: Request, run: RunView, from: number, model: string, previous: string | null, watch: AsyncGenerator<RunStreamItem>, approvals: Map<string, AskedApproval>): ApiResult {
  const queue: StreamEvent[] = [];
  const builder = new ResponseBuilder(frameOf(run, from, model, previous, approvals), (event) => queue.push(event));
  const format = (event: StreamEvent) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
  async function* frames(): AsyncGenerator<string> {
    builder.start();
    let waiting = false;
    try {
      for await (const item of watch) {
        if (item.delta) builder.delta(item.delta);
        else {
          if (item.event.type === "approval-requested") {
            waiting = true;
            await approvalsOf(actor, run.id, approvals);
          }
          builder.event(item.event);
        }
        while (queue.length) yield format(queue.shift() as StreamEvent);
        if (waiting || (item.event && isTerminalEvent(item.event.type))) break;
      }
    } finally {
      await watch.return(undefined);
    }
    if (waiting) for (const asked of await pendingAsked(actor, run.id)) builder.approvalRequest(asked);
    builder.finish();
    while (queue.length) yield format(queue.shift() as StreamEvent);
  }
  const replay = { id: responseIdOf(run.id, from), object: "response", status: "in_progress", model, metadata: { runId: run.id } };
  return { status: 200, body: replay, response: frameStream(frames(), request.signal, run.id, "response") };
}


