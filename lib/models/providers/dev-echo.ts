/**
 * `dev-echo`: the built-in deterministic provider. It needs no key, makes no HTTP call, costs nothing, and says in
 * every answer that it is not a real model.
 *
 * - No tool result since the last user message, and tools offered → one tool call (`call_<callIndex>_0`) to the
 *   FIRST offered tool, arguments built from the last user message by `echoArguments`.
 * - A tool result since the last user message → the answer is the result text (several results: one per line).
 * - No tools → the answer echoes the last user message.
 * Usage is estimated at one token per 4 characters. The answer streams through `onDelta` (attempt 1), at once: the
 * text word by word, then each tool call whole (id, name and all of its JSON arguments in one piece).
 */
import type { ModelMessage, ModelProvider, ModelRequest, ModelResponse, ToolCall, ToolSpec } from "@/lib/models/provider";
import { isRecord } from "@/lib/models/providers/shared";

/** The marker every dev-echo text starts with. */
export const DEV_ECHO_MARKER = "[dev-echo: not a real model]";
/** The warning every dev-echo response carries. */
export const DEV_ECHO_WARNING = "dev-echo is not a real model: it echoes deterministically, for development and tests";

/** The dev-echo provider. */
export function createDevEchoProvider(): ModelProvider {
  return {
    id: "dev-echo",
    kind: "dev-echo",
    async complete(request) {
      const answer = devEchoAnswer(request);
      if (request.onDelta) speak(answer, request.onDelta);
      return answer;
    },
  };
}

/** Says `answer` as a streaming provider would: each word of the text with the space after it, then each tool call. */
function speak(answer: ModelResponse, onDelta: NonNullable<ModelRequest["onDelta"]>): void {
  for (const word of answer.text?.match(/\S+\s*|\s+/g) ?? []) onDelta({ attempt: 1, text: word });
  answer.toolCalls.forEach((call, index) => onDelta({ attempt: 1, toolCalls: [{ index, id: call.id, name: call.name, argumentsDelta: JSON.stringify(call.arguments) }] }));
}

function devEchoAnswer(request: ModelRequest): ModelResponse {
  const userIndex = lastUserIndex(request.messages);
  const userText = userIndex >= 0 ? (request.messages[userIndex].content ?? "") : "";
  const results = request.messages.slice(userIndex + 1).flatMap((message) => (message.role === "tool" ? [message.content] : []));
  const tool = request.tools[0];
  if (results.length === 0 && tool) {
    const call: ToolCall = { id: `call_${request.callIndex}_0`, name: tool.name, arguments: echoArguments(tool, userText) };
    return respond(request.messages, `${DEV_ECHO_MARKER} calling ${tool.name}`, [call]);
  }
  const answer = results.length > 0 ? results.join("\n") : userText;
  return respond(request.messages, answer === "" ? DEV_ECHO_MARKER : `${DEV_ECHO_MARKER} ${answer}`, []);
}

/**
 * The arguments dev-echo sends to `tool` for the user's `text`, the first rule that applies:
 * 1. the input schema has a required property of type string → `{ [first such property]: text }`;
 * 2. the text is a JSON object → that object;
 * 3. otherwise `{}` (the kernel's validation then reports what is missing, and dev-echo echoes that result).
 * An optional property is never filled with free text: "What time is it?" is no time zone, and leaving the property
 * out lets the tool use its default (`current-time` answers in UTC).
 */
export function echoArguments(tool: ToolSpec, text: string): unknown {
  const properties = isRecord(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
  const required = Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required : [];
  const requiredString = required.find((name): name is string => typeof name === "string" && isStringSchema(properties[name]));
  if (requiredString) return { [requiredString]: text };
  return jsonObject(text) ?? {};
}

function isStringSchema(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  return schema.type === "string" || (Array.isArray(schema.type) && schema.type.includes("string"));
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  // Most messages are prose: skip the parse (and the exception it would throw) unless it can be an object.
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function respond(messages: ModelMessage[], text: string, toolCalls: ToolCall[]): ModelResponse {
  const input = messages.map((message) => `${message.content ?? ""}${message.role === "assistant" ? JSON.stringify(message.toolCalls ?? []) : ""}`).join("\n");
  const output = `${text}${toolCalls.length ? JSON.stringify(toolCalls) : ""}`;
  return {
    text,
    toolCalls,
    usage: { inputTokens: estimateTokens(input), outputTokens: estimateTokens(output) },
    costUsd: 0,
    warnings: [DEV_ECHO_WARNING],
    attempts: 0,
    finishReason: toolCalls.length ? "tool-calls" : "stop",
  };
}

function lastUserIndex(messages: ModelMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === "user") return i;
  return -1;
}

/** One token per 4 characters, rounded up. */
const estimateTokens = (text: string): number => Math.ceil(text.length / 4);
