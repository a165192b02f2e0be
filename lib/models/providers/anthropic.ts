/**
 * Anthropic Messages (`POST {baseUrl}/v1/messages`, `anthropic-version: 2023-06-01`): system prompt at the top
 * level, content blocks (`text`, `tool_use`, `tool_result`), tools, usage and stop reasons. Every call streams
 * (`stream: true`): the events' text and tool-input pieces go to the request's `onDelta` as they arrive, and
 * assemble to the answer `parseMessagesAnswer` reads from the same answer sent whole.
 */
import {
  ToolNameMap,
  type FinishReason,
  type ModelDelta,
  type ModelMessage,
  type ModelProvider,
  type ModelProviderErrorCode,
  type ModelRequest,
  type ModelResponse,
  type ResponseFormat,
  type ToolCall,
} from "@/lib/models/provider";
import { StreamFailure, postStream, type StreamReader } from "@/lib/models/providers/http";
import { NO_USAGE, endpoint, isRecord, parseArguments, tokenCount, withCost, type HttpProviderConfig, type ParsedAnswer } from "@/lib/models/providers/shared";
import type { ServerSentEvent } from "@/lib/models/providers/sse";

/** Where requests go when no base URL is configured. */
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
/** The API version this provider speaks. */
export const ANTHROPIC_VERSION = "2023-06-01";
/** `max_tokens` when the configuration sets none (the API requires one). */
export const DEFAULT_MAX_TOKENS = 4096;

/** Configuration of an Anthropic provider: the common one plus the answer's token limit. */
export type AnthropicProviderConfig = HttpProviderConfig & { maxTokens?: number };

/** A provider that speaks Anthropic Messages with `x-api-key`. */
export function createAnthropicProvider(config: AnthropicProviderConfig): ModelProvider {
  const url = endpoint(config.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL, "/v1/messages");
  const headers = { "x-api-key": config.apiKey, "anthropic-version": ANTHROPIC_VERSION };
  const maxTokens = config.maxTokens ?? DEFAULT_MAX_TOKENS;
  return {
    id: config.id,
    kind: "anthropic",
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const names = new ToolNameMap(request.tools.map((tool) => tool.name));
      const { answer, attempts } = await postStream({
        providerId: config.id,
        url,
        headers,
        body: messagesRequest(request, names, maxTokens),
        secret: config.apiKey,
        signal: request.signal,
        options: config.http,
        reader: (attempt) => messagesStreamReader(names, (delta) => request.onDelta?.({ attempt, ...delta })),
      });
      return withCost(config, request.model, answer, attempts);
    },
  };
}

type Block = Record<string, unknown>;
type WireMessage = { role: "user" | "assistant"; content: Block[] };

/**
 * The Messages request body, streamed: system messages joined into the top-level `system` (plus a JSON-only instruction when
 * a JSON answer is asked for — this API version has no JSON mode), the rest as content blocks, consecutive
 * messages of one role (tool results, then a user message) merged into one, tool ids mapped to API names.
 */
export function messagesRequest(request: ModelRequest, names: ToolNameMap, maxTokens: number): Record<string, unknown> {
  const system = [...request.messages.flatMap((m) => (m.role === "system" ? [m.content] : [])), ...(request.responseFormat ? [jsonInstruction(request.responseFormat)] : [])].join("\n\n");
  return {
    model: request.model,
    max_tokens: maxTokens,
    ...(system !== "" && { system }),
    messages: mergeRoles(request.messages.flatMap((message) => wireMessage(message, names))),
    ...(request.tools.length > 0 && { tools: request.tools.map((tool) => ({ name: names.toApi(tool.name), description: tool.description, input_schema: tool.inputSchema })) }),
    stream: true,
  };
}

function jsonInstruction(format: ResponseFormat): string {
  const schema = format.schema ? ` It must match this JSON Schema: ${JSON.stringify(format.schema)}` : "";
  return `Answer with a single JSON value only: no prose, no code fences.${schema}`;
}

/** A message as content blocks; none for system messages and for messages with nothing to say (the API refuses empty text). */
function wireMessage(message: ModelMessage, names: ToolNameMap): WireMessage[] {
  switch (message.role) {
    case "system":
      return [];
    case "user":
      return message.content === "" ? [] : [{ role: "user", content: [{ type: "text", text: message.content }] }];
    case "assistant": {
      const text = message.content ? [{ type: "text", text: message.content }] : [];
      const calls = (message.toolCalls ?? []).map((call) => ({ type: "tool_use", id: call.id, name: names.toApi(call.name), input: isRecord(call.arguments) ? call.arguments : {} }));
      const content = [...text, ...calls];
      return content.length ? [{ role: "assistant", content }] : [];
    }
    case "tool":
      return [{ role: "user", content: [{ type: "tool_result", tool_use_id: message.toolCallId, content: message.content }] }];
  }
}

function mergeRoles(messages: WireMessage[]): WireMessage[] {
  const merged: WireMessage[] = [];
  for (const message of messages) {
    const last = merged.at(-1);
    if (last?.role === message.role) last.content.push(...message.content);
    else merged.push({ role: message.role, content: [...message.content] });
  }
  return merged;
}

/**
 * Reads a Messages answer: text blocks joined (null when there are none), `tool_use` blocks as tool calls, other
 * block types ignored, usage and stop reason. Returns a description of the problem when the body is not one.
 */
export function parseMessagesAnswer(body: unknown, names: ToolNameMap): ParsedAnswer | string {
  if (!isRecord(body) || !Array.isArray(body.content)) return "the answer has no content array";
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const [i, block] of body.content.entries()) {
    if (!isRecord(block)) return `content[${i}] is not a block`;
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    if (block.type !== "tool_use") continue;
    if (typeof block.id !== "string" || typeof block.name !== "string") return `content[${i}] is a tool_use block without id or name`;
    toolCalls.push({ id: block.id, name: names.fromApi(block.name), arguments: block.input ?? {} });
  }
  const usage = isRecord(body.usage) ? body.usage : undefined;
  return {
    text: texts.length ? texts.join("") : null,
    toolCalls,
    usage: { inputTokens: tokenCount(usage?.input_tokens), outputTokens: tokenCount(usage?.output_tokens) },
    warnings: usage ? [] : [NO_USAGE],
    finishReason: finishReason(body.stop_reason, toolCalls.length > 0),
  };
}

function finishReason(raw: unknown, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls) return "tool-calls";
  if (raw === "end_turn" || raw === "stop_sequence") return "stop";
  if (raw === "max_tokens") return "length";
  return "other";
}

/**
 * Reads one streamed call's events (`message_start` … `message_stop`): text blocks' `text_delta` pieces, `tool_use`
 * blocks (id and name at `content_block_start`, the input as `input_json_delta` pieces of JSON), other block types
 * ignored, the stop reason from `message_delta`, usage from `message_start` (input) and `message_delta` (output, and
 * input when it says). Each event's pieces go to `emit` (tool names mapped back to tool ids; a tool call's `index`
 * counts tool calls only). `content_block_stop`, `ping` and event types this version does not know are skipped; an
 * `error` event fails the attempt with the code its type means. The answer is the one `parseMessagesAnswer` reads
 * from the same answer sent whole.
 */
export function messagesStreamReader(names: ToolNameMap, emit: (delta: Omit<ModelDelta, "attempt">) => void): StreamReader<ParsedAnswer> {
  type Block = { type: "text"; text: string } | { type: "tool_use"; position: number } | { type: "other" };
  /** The started blocks by their `index`, in the order they started. */
  const blocks = new Map<unknown, Block>();
  const calls: { id: string; apiName: string; input: unknown; json: string }[] = [];
  let stop: unknown;
  let startUsage: Record<string, unknown> | undefined;
  let finalUsage: Record<string, unknown> | undefined;
  return {
    terminal: "event: message_stop",
    read(event: ServerSentEvent): boolean {
      const data = parseEvent(event);
      switch (data.type) {
        case "message_start":
          if (isRecord(data.message) && isRecord(data.message.usage)) startUsage = data.message.usage;
          return false;
        case "content_block_start": {
          const block = isRecord(data.content_block) ? data.content_block : undefined;
          if (!block || typeof data.index !== "number") throw new StreamFailure("provider-bad-response", "a content_block_start event has no index or content_block");
          if (block.type === "text") {
            const text = typeof block.text === "string" ? block.text : "";
            blocks.set(data.index, { type: "text", text });
            if (text !== "") emit({ text });
          } else if (block.type === "tool_use") {
            if (typeof block.id !== "string" || typeof block.name !== "string") throw new StreamFailure("provider-bad-response", `content[${data.index}] is a tool_use block without id or name`);
            blocks.set(data.index, { type: "tool_use", position: calls.length });
            calls.push({ id: block.id, apiName: block.name, input: block.input, json: "" });
            emit({ toolCalls: [{ index: calls.length - 1, id: block.id, name: names.fromApi(block.name), argumentsDelta: "" }] });
          } else blocks.set(data.index, { type: "other" });
          return false;
        }
        case "content_block_delta": {
          const block = blocks.get(data.index);
          const delta = isRecord(data.delta) ? data.delta : {};
          if (!block) throw new StreamFailure("provider-bad-response", `a content_block_delta event for block ${JSON.stringify(data.index)}, which did not start`);
          if (block.type === "text" && delta.type === "text_delta" && typeof delta.text === "string") {
            block.text += delta.text;
            if (delta.text !== "") emit({ text: delta.text });
          } else if (block.type === "tool_use" && delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
            calls[block.position].json += delta.partial_json;
            if (delta.partial_json !== "") emit({ toolCalls: [{ index: block.position, argumentsDelta: delta.partial_json }] });
          }
          return false;
        }
        case "message_delta":
          if (isRecord(data.delta) && typeof data.delta.stop_reason === "string") stop = data.delta.stop_reason;
          if (isRecord(data.usage)) finalUsage = data.usage;
          return false;
        case "message_stop":
          return true;
        case "error":
          throw streamError(data.error);
        default:
          return false;
      }
    },
    answer(): ParsedAnswer {
      const texts = [...blocks.values()].flatMap((block) => (block.type === "text" ? [block.text] : []));
      const toolCalls: ToolCall[] = calls.map((call) => ({
        id: call.id,
        name: names.fromApi(call.apiName),
        arguments: call.json.trim() === "" ? (call.input ?? {}) : parseArguments(call.json),
      }));
      const hasUsage = startUsage !== undefined || finalUsage !== undefined;
      return {
        text: texts.length ? texts.join("") : null,
        toolCalls,
        usage: {
          inputTokens: tokenCount(finalUsage?.input_tokens ?? startUsage?.input_tokens),
          outputTokens: tokenCount(finalUsage?.output_tokens ?? startUsage?.output_tokens),
        },
        warnings: hasUsage ? [] : [NO_USAGE],
        finishReason: finishReason(stop, toolCalls.length > 0),
      };
    },
  };
}

/** An event's JSON data; its `type` falls back to the `event:` name. Data that is not a JSON object fails the attempt. */
function parseEvent(event: ServerSentEvent): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    throw new StreamFailure("provider-bad-response", `the data of a ${event.event ?? "nameless"} event is not JSON`);
  }
  if (!isRecord(data)) throw new StreamFailure("provider-bad-response", `the data of a ${event.event ?? "nameless"} event is not a JSON object`);
  return typeof data.type === "string" ? data : { ...data, type: event.event };
}

/** The failure an `error` event means: its type decides the code and whether another attempt may succeed. */
function streamError(error: unknown): StreamFailure {
  const type = isRecord(error) && typeof error.type === "string" ? error.type : "error";
  const message = isRecord(error) && typeof error.message === "string" && error.message !== "" ? `: ${error.message}` : "";
  const [code, retryable] = STREAM_ERRORS[type] ?? (["provider-unavailable", true] as const);
  return new StreamFailure(code, `the stream reported ${type}${message}`, { retryable });
}

/** Anthropic's error types, as their HTTP statuses are classified; an unknown type counts as a server error. */
const STREAM_ERRORS: Record<string, readonly [ModelProviderErrorCode, boolean]> = {
  invalid_request_error: ["provider-request-failed", false],
  authentication_error: ["provider-auth-failed", false],
  permission_error: ["provider-auth-failed", false],
  not_found_error: ["provider-request-failed", false],
  request_too_large: ["provider-request-failed", false],
  rate_limit_error: ["provider-rate-limited", true],
  api_error: ["provider-unavailable", true],
  overloaded_error: ["provider-unavailable", true],
};
