/**
 * OpenAI-compatible Chat Completions (`POST {baseUrl}/chat/completions`): OpenAI itself, Ollama, vLLM, LM Studio
 * and other servers that speak the same wire format. Tools, tool calls, JSON answers and usage.
 */
import {
  ModelProviderError,
  ToolNameMap,
  sanitizeToolName,
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
      const { body, attempts } = await postJson({ providerId: config.id, url, headers, body: chatRequest(request, names), secret: config.apiKey, signal: request.signal, options: config.http });
      const answer = parseChatCompletion(body, names, request.callIndex);
      if (typeof answer === "string") throw new ModelProviderError("provider-bad-response", `${config.id}: ${answer}`, { status: 200, attempts });
      return withCost(config, request.model, answer, attempts);
    },
  };
}

/** The Chat Completions request body for `request`, tool ids mapped to API names. */
export function chatRequest(request: ModelRequest, names: ToolNameMap): Record<string, unknown> {
  return {
    model: request.model,
    messages: request.messages.map((message) => wireMessage(message, names)),
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

type ParsedAnswer = Omit<ModelResponse, "costUsd" | "attempts">;

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

/** JSON-string arguments parsed; blank means `{}`; not JSON → the raw string, so the kernel reports invalid-arguments. Some servers (Ollama) send an object already. */
function parseArguments(raw: string): unknown {
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** `tool-calls` whenever there are tool calls (some servers report `stop` with them), else the API's reason. */
function finishReason(raw: unknown, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls) return "tool-calls";
  if (raw === "stop") return "stop";
  if (raw === "length") return "length";
  return "other";
}
