/**
 * Anthropic Messages (`POST {baseUrl}/v1/messages`, `anthropic-version: 2023-06-01`): system prompt at the top
 * level, content blocks (`text`, `tool_use`, `tool_result`), tools, usage and stop reasons.
 */
import {
  ModelProviderError,
  ToolNameMap,
  type FinishReason,
  type ModelMessage,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ResponseFormat,
  type ToolCall,
} from "@/lib/models/provider";
import { postJson } from "@/lib/models/providers/http";
import { NO_USAGE, endpoint, isRecord, tokenCount, withCost, type HttpProviderConfig } from "@/lib/models/providers/shared";

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
      const { body, attempts } = await postJson({ providerId: config.id, url, headers, body: messagesRequest(request, names, maxTokens), secret: config.apiKey, signal: request.signal, options: config.http });
      const answer = parseMessagesAnswer(body, names);
      if (typeof answer === "string") throw new ModelProviderError("provider-bad-response", `${config.id}: ${answer}`, { status: 200, attempts });
      return withCost(config, request.model, answer, attempts);
    },
  };
}

type Block = Record<string, unknown>;
type WireMessage = { role: "user" | "assistant"; content: Block[] };

/**
 * The Messages request body: system messages joined into the top-level `system` (plus a JSON-only instruction when
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

type ParsedAnswer = Omit<ModelResponse, "costUsd" | "attempts">;

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
