/**
 * `POST /v1/chat/completions` (DESIGN.md §9): an agent as an OpenAI chat model. The request's last message (a user
 * message) is the turn's input; the earlier user and assistant messages are the history of a conversation opened
 * for the turn (system and developer messages are not passed on: the agent's instructions are its system prompt).
 * The agent's tools run on this server and are never sent as `tool_calls`; a client's `tools` or `functions` are
 * refused. A call that waits for a person's approval ends the completion with an assistant message naming the call
 * and the approval's console link. Streamed (`stream: true`): the model's words as `chat.completion.chunk`s as they
 * are written — every model call's, so words a model says before calling a tool come too, a paragraph before the
 * final answer's — a last chunk with `finish_reason`, one with `usage` when `stream_options.include_usage`, then
 * `[DONE]`.
 */
import { AppError, type Issue } from "@/lib/errors";
import type { ApiResult } from "@/lib/api/respond";
import { publicOrigin } from "@/lib/api/public-origin";
import type { Actor } from "@/lib/services/actor";
import { listApprovals } from "@/lib/services/approvals";
import { openAiProject, resolveAgentModel } from "@/lib/services/agent-models";
import { openConversation } from "@/lib/services/conversations";
import { createRun, getRun, watchRun, type RunStreamItem, type RunView } from "@/lib/services/runs";
import { frameStream } from "@/lib/doors/openai/sse";

type ChatMessage = { role?: unknown; content?: unknown; name?: unknown };
export type ChatCompletionBody = {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  user?: string;
  n?: number | null;
  tools?: unknown;
  functions?: unknown;
  tool_choice?: unknown;
  function_call?: unknown;
};

/** The turn a request asks for: its input, and the history before it. */
type Turn = { userMessage: string; history: { role: "user" | "assistant"; content: string }[] };

/** A message's text: a string, or text parts (`[{type: "text", text}]`); null for any other content. */
function textOf(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part !== "object" || part === null || (part as { type?: unknown }).type !== "text" || typeof (part as { text?: unknown }).text !== "string") return null;
    parts.push((part as { text: string }).text);
  }
  return parts.join("");
}

/** Checks what this server cannot honour and splits the messages into the turn's input and its history. */
export function turnOf(body: ChatCompletionBody): Turn {
  const issues: Issue[] = [];
  for (const field of ["tools", "functions", "tool_choice", "function_call"] as const) {
    if (body[field] !== undefined && body[field] !== null) issues.push({ path: `/${field}`, message: "is not accepted: the agent's own tools run on this server (a client's tools are never called)" });
  }
  if (typeof body.n === "number" && body.n !== 1) issues.push({ path: "/n", message: "must be 1: a turn has one answer" });
  const history: Turn["history"] = [];
  let userMessage: string | null = null;
  body.messages.forEach((message, index) => {
    const role = message.role;
    const text = textOf(message.content);
    const last = index === body.messages.length - 1;
    if (role === "system" || role === "developer") return;
    if (role !== "user" && role !== "assistant") {
      issues.push({ path: `/messages/${index}/role`, message: `${JSON.stringify(role)} is not accepted: send user and assistant messages (tool results are this server's own)` });
      return;
    }
    if (text === null) {
      issues.push({ path: `/messages/${index}/content`, message: "must be a string or text parts ([{type: \"text\", text}])" });
      return;
    }
    if (last) {
      if (role !== "user") issues.push({ path: `/messages/${index}/role`, message: "the last message must be the user's: it is the turn's input" });
      else if (text.trim() === "") issues.push({ path: `/messages/${index}/content`, message: "must not be empty" });
      else userMessage = text;
    } else history.push({ role, content: text });
  });
  if (body.messages.length === 0) issues.push({ path: "/messages", message: "must hold at least the user's message" });
  if (issues.length || userMessage === null) throw new AppError("validation-failed", `the request cannot be served: ${issues.map((issue) => `${issue.path} ${issue.message}`).join("; ")}`, { issues });
  return { userMessage, history };
}

/** Starts the turn the request asks for: the agent version its model names, in a conversation holding its history. */
async function startTurn(actor: Actor, request: Request, body: ChatCompletionBody, turn: Turn, stream: boolean, hooks?: { beforeStart?: (runId: string, lastSeq: number) => void }) {
  const projectId = await openAiProject(actor, request.headers.get("openai-project"));
  const agent = await resolveAgentModel(actor, projectId, body.model);
  const conversationId = turn.history.length ? (await openConversation(actor, { agent: { id: agent.agentId, version: agent.version }, title: "OpenAI chat completion", history: turn.history })).id : undefined;
  const created = await createRun(actor, { agent: { id: agent.agentId, version: agent.version }, input: { userMessage: turn.userMessage, ...(conversationId ? { conversationId } : {}) }, options: { wait: !stream } }, undefined, hooks);
  if (created.status === 200) throw new AppError("bad-input", "a dry run cannot be asked for through the chat completions route");
  return created.body;
}

/** The answer's text: a string answer as it is, a typed (JSON) answer as its JSON. */
const answerText = (output: unknown): string => (typeof output === "string" ? output : JSON.stringify(output ?? null));

/** What a run that waits tells the client: the call and the approval's console link. */
async function waitingMessage(actor: Actor, run: RunView, origin: string): Promise<string> {
  const pending = await listApprovals(actor, { runId: run.id, status: "pending" }, { limit: 10 });
  if (pending.data.length === 0) return `The turn waits for an outside system to answer a paused tool call; run ${run.id} continues once it does (${origin}/runs/${run.id}).`;
  return pending.data
    .map((approval) => `The call of ${approval.tool ? `${approval.tool.id}@${approval.tool.version}` : "a tool"} waits for a person's approval: ${origin}/approvals/${approval.id} (run ${run.id} continues once it is decided).`)
    .join("\n");
}

function failureOf(run: RunView): AppError {
  const failure = run.failure ?? { code: run.status, message: `the run was ${run.status}` };
  return new AppError("run-failed", `run ${run.id} failed: ${failure.code}: ${failure.message}`, { runId: run.id, failure });
}

const usageOf = (run: RunView) => ({ prompt_tokens: run.usage.inputTokens, completion_tokens: run.usage.outputTokens, total_tokens: run.usage.inputTokens + run.usage.outputTokens });
const createdOf = (run: RunView) => Math.floor(Date.parse(run.createdAt) / 1000);

/** POST /v1/chat/completions. */
export async function createChatCompletion(actor: Actor, request: Request, body: ChatCompletionBody): Promise<ApiResult | Response> {
  const turn = turnOf(body);
  const origin = publicOrigin(request);
  if (body.stream === true) return streamChatCompletion(actor, request, body, turn, origin);
  let run = await startTurn(actor, request, body, turn, false);
  if (run.status === "running" || run.status === "pending") run = await getRun(actor, run.id);
  if (run.status === "failed" || run.status === "cancelled") throw failureOf(run);
  const content = run.status === "completed" ? answerText(run.output) : await waitingMessage(actor, run, origin);
  return {
    status: 200,
    headers: { "X-Kindgi-Run-Id": run.id },
    body: {
      id: `chatcmpl-${run.id}`,
      object: "chat.completion",
      created: createdOf(run),
      model: body.model,
      choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop", logprobs: null }],
      usage: usageOf(run),
    },
  };
}

/** The streamed completion: chunks of the model's words as the run's watch hears them, until the turn ends or waits. */
async function streamChatCompletion(actor: Actor, request: Request, body: ChatCompletionBody, turn: Turn, origin: string): Promise<ApiResult> {
  let items: AsyncGenerator<RunStreamItem> | undefined;
  const started = await startTurn(actor, request, body, turn, true, { beforeStart: (runId, lastSeq) => (items = watchRun(actor, runId, 0, request.signal, { deltas: true, openedAt: lastSeq })) });
  const watch = items as AsyncGenerator<RunStreamItem>;
  const id = `chatcmpl-${started.id}`;
  const created = createdOf(started);
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...extra })}\n\n`;
  const includeUsage = body.stream_options?.include_usage === true;
  async function* frames(): AsyncGenerator<string> {
    yield chunk({ role: "assistant", content: "" }, null);
    let streamed = "";
    let lastCall: number | null = null;
    let waiting = false;
    try {
      for await (const item of watch) {
        if (item.delta) {
          if (item.delta.text) {
            // A later model call's words (after the tools an earlier one called) start a paragraph of their own.
            const text = streamed && lastCall !== null && item.delta.callIndex !== lastCall ? `\n\n${item.delta.text}` : item.delta.text;
            lastCall = item.delta.callIndex;
            streamed += text;
            yield chunk({ content: text }, null);
          }
          continue;
        }
        const type = item.event.type;
        if (type === "approval-requested" || type === "wait-started") {
          waiting = true;
          break;
        }
        if (type === "run-completed" || type === "run-failed" || type === "run-cancelled") break;
      }
    } finally {
      await watch.return(undefined);
    }
    const run = await getRun(actor, started.id);
    if (run.status === "failed" || run.status === "cancelled") {
      const failure = failureOf(run);
      yield `data: ${JSON.stringify({ error: { message: failure.message, type: "server_error", param: null, code: failure.code, details: failure.details } })}\n\n`;
      return;
    }
    if (waiting || run.status === "suspended") {
      const message = await waitingMessage(actor, run, origin);
      yield chunk({ content: `${streamed ? "\n\n" : ""}${message}` }, null);
    } else if (streamed === "" && run.status === "completed") {
      // A provider that did not stream (or a typed answer): the answer in one piece.
      yield chunk({ content: answerText(run.output) }, null);
    }
    yield chunk({}, "stop");
    if (includeUsage) yield `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, choices: [], usage: usageOf(run) })}\n\n`;
    yield "data: [DONE]\n\n";
  }
  // What a repeat of the request with the same Idempotency-Key answers: the completion's id and its run.
  const replay = { id, object: "chat.completion", created, model: body.model, choices: [], runId: started.id };
  return { status: 200, body: replay, response: frameStream(frames(), request.signal, started.id, "chat completion") };
}
