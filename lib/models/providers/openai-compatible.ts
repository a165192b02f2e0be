/**
 * OpenAI-compatible Chat Completions (`POST {baseUrl}/chat/completions`): OpenAI itself, Ollama, vLLM, LM Studio
 * and other servers that speak the same wire format. Tools, tool calls, JSON answers and usage. Every call
 * streams (`stream: true`, usage asked for in a last chunk): the chunks' text and tool-call pieces go to the
 * request's `onDelta` as they arrive, and assemble to the answer `parseChatCompletion` reads from the same answer
 * sent whole.
 */
import {
  ToolNameMap,
  sanitizeToolName,
  type FinishReason,
  type ModelMessage,
  type ModelDelta,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ResponseFormat,
  type ToolCall,
  type ToolCallDelta,
} from "@/lib/models/provider";
import { StreamFailure, postStream, summarizeBody, type StreamReader } from "@/lib/models/providers/http";
import { NO_USAGE, endpoint, isRecord, parseArguments, tokenCount, withCost, type HttpProviderConfig, type ParsedAnswer } from "@/lib/models/providers/shared";
import type { ServerSentEvent } from "@/lib/models/providers/sse";

/** Where requests go when no base URL is configured. */
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** A provider that speaks OpenAI Chat Completions. Sends `Authorization: Bearer <apiKey>` unless the key is empty (a local server). */
export function createOpenAICompatibleProvider(config: HttpProviderConfig): ModelProvider {
  const url = endpoint(config.baseUrl ?? OPENAI_DEFAULT_BASE_URL, "/chat/completions");
  const headers: Record<string, string> = config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {};
  return {
    id: config.id,
    kind: "openai-compatible",
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const names = new ToolNameMap(request.tools.map((tool) => tool.name));
      const { answer, attempts } = await postStream({
        providerId: config.id,
        url,
        headers,
        body: chatRequest(request, names),
        secret: config.apiKey,
        signal: request.signal,
        options: config.http,
        reader: (attempt) => chatStreamReader(names, request.callIndex, (delta) => request.onDelta?.({ attempt, ...delta })),
      });
      return withCost(config, request.model, answer, attempts);
    },
  };
}

/** The Chat Completions request body for `request`, tool ids mapped to API names, streamed with usage at the end. */
export function chatRequest(request: ModelRequest, names: ToolNameMap): Record<string, unknown> {
  return {
    model: request.model,
    messages: request.messages.map((message) => wireMessage(message, names)),
    stream: true,
    stream_options: { include_usage: true },
    ...(request.tools.length > 0 && {
      tools: request.tools.map((tool) => ({ type: "function", function: { name: names.toApi(tool.name), description: tool.description, parameters: tool.inputSchema } })),
    }),
    ...(request.responseFormat && { response_format: responseFormat(request.responseFormat) }),
  };
}

function wireMessage(message: ModelMessage, names: ToolNameMap): Record<string, unknown> {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "assistant":
      return {
        role: "assistant",
        // The API accepts null content only next to tool calls.
        content: message.content ?? (message.toolCalls?.length ? null : ""),
        ...(message.toolCalls?.length
          ? { tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: names.toApi(call.name), arguments: wireArguments(call.arguments) } })) }
          : {}),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  }
}

/** Arguments as the JSON string the API wants; a string (raw arguments the model sent earlier) goes back as it was. */
const wireArguments = (args: unknown): string => (typeof args === "string" ? args : JSON.stringify(args ?? {}));

function responseFormat(format: ResponseFormat): Record<string, unknown> {
  if (!format.schema) return { type: "json_object" };
  return { type: "json_schema", json_schema: { name: sanitizeToolName(format.name ?? "output"), schema: format.schema } };
}

/**
 * Reads `choices[0]` of a Chat Completions answer: text, tool calls (ids kept; missing ids become
 * `call_<callIndex>_<i>`), usage and finish reason. Returns a description of the problem when the body is not a
 * Chat Completions answer.
 */
export function parseChatCompletion(body: unknown, names: ToolNameMap, callIndex: number): ParsedAnswer | string {
  const choice = isRecord(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isRecord(choice) || !isRecord(choice.message)) return "the answer has no choices[0].message";
  const { message } = choice;
  const rawCalls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const toolCalls: ToolCall[] = [];
  for (const [i, raw] of rawCalls.entries()) {
    const call = toolCall(raw, names, `call_${callIndex}_${i}`);
    if (!call) return `tool_calls[${i}] has no function name`;
    toolCalls.push(call);
  }
  const usage = isRecord(body) && isRecord(body.usage) ? body.usage : undefined;
  return {
    text: typeof message.content === "string" ? message.content : null,
    toolCalls,
    usage: { inputTokens: tokenCount(usage?.prompt_tokens), outputTokens: tokenCount(usage?.completion_tokens) },
    warnings: usage ? [] : [NO_USAGE],
    finishReason: finishReason(choice.finish_reason, toolCalls.length > 0),
  };
}

function toolCall(raw: unknown, names: ToolNameMap, fallbackId: string): ToolCall | null {
  const fn = isRecord(raw) && isRecord(raw.function) ? raw.function : undefined;
  if (typeof fn?.name !== "string" || fn.name === "") return null;
  const id = isRecord(raw) && typeof raw.id === "string" && raw.id !== "" ? raw.id : fallbackId;
  return { id, name: names.fromApi(fn.name), arguments: typeof fn.arguments === "string" ? parseArguments(fn.arguments) : (fn.arguments ?? {}) };
}

/**
 * Reads one streamed call's chunks (`data: {chat.completion.chunk}` … `data: [DONE]`) of `choices[0]`: text
 * pieces, tool-call pieces (by their `index`; id and name on the first, arguments in pieces), the finish reason,
 * and usage from the last chunk that carries it (with `include_usage`, one after the finish with empty `choices`).
 * Each chunk's pieces go to `emit` as one delta (tool names mapped back to tool ids, a call without an id given
 * `call_<callIndex>_<i>` as `parseChatCompletion` does). The answer is the one `parseChatCompletion` reads from the
 * same answer sent whole. A chunk that is not JSON, not a chunk, or an error (`{"error": …}`, which some servers
 * send mid-stream) fails the attempt.
 */
export function chatStreamReader(names: ToolNameMap, callIndex: number, emit: (delta: Omit<ModelDelta, "attempt">) => void): StreamReader<ParsedAnswer> {
  let text: string | null = null;
  const calls: { id: string; apiName?: string; arguments: string }[] = [];
  /** The position in `calls` of each wire `index`. */
  const positions = new Map<unknown, number>();
  let finish: unknown;
  let usage: Record<string, unknown> | undefined;
  return {
    terminal: "data: [DONE]",
    read(event: ServerSentEvent): boolean {
      if (event.data.trim() === "[DONE]") return true;
      const chunk = parseChunk(event.data);
      if (isRecord(chunk.usage)) usage = chunk.usage;
      const choice = Array.isArray(chunk.choices) ? chunk.choices.find((candidate) => isRecord(candidate) && (candidate.index ?? 0) === 0) : undefined;
      if (!isRecord(choice)) return false;
      if (typeof choice.finish_reason === "string") finish = choice.finish_reason;
      const delta = isRecord(choice.delta) ? choice.delta : {};
      const pieces: Omit<ModelDelta, "attempt"> = {};
      if (typeof delta.content === "string") {
        text = (text ?? "") + delta.content;
        if (delta.content !== "") pieces.text = delta.content;
      }
      const toolCalls: ToolCallDelta[] = [];
      for (const raw of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        if (!isRecord(raw)) throw new StreamFailure("provider-bad-response", "a chunk's tool_calls holds something that is not a tool call");
        const fn = isRecord(raw.function) ? raw.function : {};
        const key = raw.index ?? (typeof raw.id === "string" && raw.id !== "" ? raw.id : calls.length - 1);
        let position = positions.get(key);
        const piece: ToolCallDelta = { index: position ?? calls.length, argumentsDelta: "" };
        if (position === undefined) {
          position = calls.length;
          positions.set(key, position);
          calls.push({ id: typeof raw.id === "string" && raw.id !== "" ? raw.id : `call_${callIndex}_${position}`, arguments: "" });
          piece.id = calls[position].id;
        }
        const call = calls[position];
        if (call.apiName === undefined && typeof fn.name === "string" && fn.name !== "") {
          call.apiName = fn.name;
          piece.name = names.fromApi(fn.name);
        }
        // Some servers (Ollama) send the arguments as an object: its JSON is what a string would have held.
        const argumentsDelta = typeof fn.arguments === "string" ? fn.arguments : fn.arguments === undefined || fn.arguments === null ? "" : JSON.stringify(fn.arguments);
        call.arguments += argumentsDelta;
        piece.argumentsDelta = argumentsDelta;
        toolCalls.push(piece);
      }
      if (toolCalls.length) pieces.toolCalls = toolCalls;
      if (pieces.text !== undefined || pieces.toolCalls) emit(pieces);
      return false;
    },
    answer(): ParsedAnswer {
      const toolCalls: ToolCall[] = [];
      for (const [i, call] of calls.entries()) {
        if (call.apiName === undefined) throw new StreamFailure("provider-bad-response", `tool_calls[${i}] has no function name`);
        toolCalls.push({ id: call.id, name: names.fromApi(call.apiName), arguments: parseArguments(call.arguments) });
      }
      return {
        text,
        toolCalls,
        usage: { inputTokens: tokenCount(usage?.prompt_tokens), outputTokens: tokenCount(usage?.completion_tokens) },
        warnings: usage ? [] : [NO_USAGE],
        finishReason: finishReason(finish, toolCalls.length > 0),
      };
    },
  };
}

/** One chunk's JSON; a chunk that is not a JSON object, or that reports an error, fails the attempt. */
function parseChunk(data: string): Record<string, unknown> {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new StreamFailure("provider-bad-response", `a stream chunk is not JSON: ${data.length > 80 ? `${data.slice(0, 80)}…` : data}`);
  }
  if (!isRecord(chunk)) throw new StreamFailure("provider-bad-response", "a stream chunk is not a JSON object");
  if (isRecord(chunk.error)) throw new StreamFailure("provider-unavailable", `the stream reported an error${summarizeBody(JSON.stringify(chunk))}`);
  return chunk;
}

/** `tool-calls` whenever there are tool calls (some servers report `stop` with them), else the API's reason. */
function finishReason(raw: unknown, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls) return "tool-calls";
  if (raw === "stop") return "stop";
  if (raw === "length") return "length";
  return "other";
}
