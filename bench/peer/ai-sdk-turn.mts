/**
 * Row (c) of bench/kernel-turns.ts: the same clock turn with the Vercel AI SDK (`ai`, a dev dependency of bench/
 * only) — `generateText` with its `MockLanguageModelV3` and a `current-time` tool, all in memory.
 *
 * The fake model answers like our dev-echo provider: with no tool result after the last user message it calls the
 * first offered tool with `{timezone: <user message>}`; once it sees the result, the answer is the result's text.
 * Every turn is checked: exactly 2 model calls, 1 tool call, and an answer equal to the tool's result text.
 *
 * This file is `.mts` because the root tsconfig includes only `.ts`/`.tsx` files and must not type-check it (`ai` is
 * not installed at the root); bench/tsconfig.json checks it against bench/node_modules (`npx tsc -p bench`).
 */
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { z } from "zod";
import type { TurnHarness } from "../turn-harness";
import { currentTime, CURRENT_TIME_TOOL } from "./clock.mjs";

const usage = (input: number, output: number): LanguageModelV3GenerateResult["usage"] => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

/** The text of the tool results after the last user message, one per line (none: empty list). */
function toolResultsSinceUser(prompt: LanguageModelV3Prompt): { userText: string; results: string[] } {
  let userIndex = -1;
  for (let i = prompt.length - 1; i >= 0 && userIndex < 0; i--) if (prompt[i].role === "user") userIndex = i;
  const user = prompt[userIndex];
  const userText = user?.role === "user" ? user.content.map((part) => (part.type === "text" ? part.text : "")).join("") : "";
  const results: string[] = [];
  for (const message of prompt.slice(userIndex + 1)) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      const output = part.output;
      results.push(output.type === "text" || output.type === "error-text" ? output.value : JSON.stringify("value" in output ? output.value : output));
    }
  }
  return { userText, results };
}

/** The fake model's one step, dev-echo style. */
function fakeStep(options: LanguageModelV3CallOptions, callIndex: number): LanguageModelV3GenerateResult {
  const { userText, results } = toolResultsSinceUser(options.prompt);
  const offered = options.tools?.find((candidate) => candidate.type === "function");
  if (results.length === 0 && offered) {
    return {
      content: [{ type: "tool-call", toolCallId: `call_${callIndex}_0`, toolName: offered.name, input: JSON.stringify({ timezone: userText }) }],
      finishReason: { unified: "tool-calls", raw: "tool_calls" },
      usage: usage(userText.length, 16),
      warnings: [],
    };
  }
  const answer = results.length > 0 ? results.join("\n") : userText;
  return { content: [{ type: "text", text: answer }], finishReason: { unified: "stop", raw: "stop" }, usage: usage(answer.length, answer.length), warnings: [] };
}

/** A harness running the clock turn with `generateText`; `runTurn` rejects unless the turn went model → tool → model. */
export async function createPeerHarness(): Promise<TurnHarness> {
  // Per turn (runTurn is awaited before the next starts): model calls, tool calls, the last tool result's text.
  let modelCalls = 0;
  let toolCalls = 0;
  let lastResult = "";
  const model = new MockLanguageModelV3({
    provider: "bench",
    modelId: "fake-echo",
    doGenerate: async (options) => fakeStep(options, modelCalls++),
  });
  const tools = {
    [CURRENT_TIME_TOOL.name]: tool({
      description: CURRENT_TIME_TOOL.description,
      inputSchema: z.object({ timezone: z.string().describe(CURRENT_TIME_TOOL.timezone) }),
      execute: async ({ timezone }) => {
        toolCalls++;
        const result = currentTime(timezone);
        lastResult = JSON.stringify(result);
        return result;
      },
    }),
  };
  return {
    async runTurn(userMessage: string): Promise<string> {
      modelCalls = 0;
      toolCalls = 0;
      const result = await generateText({ model, tools, system: "You tell the time.", prompt: userMessage, stopWhen: stepCountIs(8), maxRetries: 0 });
      // The mock keeps every call's options; a long run must not hold thousands of prompts.
      model.doGenerateCalls.length = 0;
      if (modelCalls !== 2 || toolCalls !== 1 || result.steps.length !== 2) throw new Error(`peer turn made ${modelCalls} model calls, ${toolCalls} tool calls, ${result.steps.length} steps (expected 2, 1, 2)`);
      if (result.text !== lastResult) throw new Error(`peer answer ${JSON.stringify(result.text)} is not the tool result ${lastResult}`);
      return result.text;
    },
    async close() {},
  };
}
