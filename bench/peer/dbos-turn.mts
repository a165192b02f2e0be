/**
 * Row (d) of bench/kernel-turns.ts: the same clock turn with DBOS Transact (`@dbos-inc/dbos-sdk`, a dev dependency of
 * bench/ only) as a durable execution: one workflow (`DBOS.registerWorkflow`) per turn, a new workflow id each time,
 * whose model calls and tool call are steps (`DBOS.registerStep`): DBOS records the workflow's start, each step's
 * output and the workflow's end in its system database, which is the PostgreSQL database it is given (created and
 * migrated by `DBOS.launch`; the bench gives it a fresh database of its own on the same server).
 *
 * The fake model answers like our dev-echo provider: with no tool result after the last user message it calls the
 * tool with `{timezone: <user message>}`; once it sees the result, the answer is the result's text. A step's input and
 * output are plain JSON, as a provider's request and answer would be. Every turn is checked: exactly 2 model calls,
 * 1 tool call, and an answer equal to the tool's result text.
 *
 * DBOS is a process-wide singleton: one harness per process (the bench makes one).
 *
 * `.mts`, outside the root type-check, like bench/peer/ai-sdk-turn.mts (`npx tsc -p bench`).
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import type { TurnHarness } from "../turn-harness";
import { currentTime, CURRENT_TIME_TOOL } from "./clock.mjs";

type Message = { role: "system" | "user" | "assistant" | "tool"; content: string; toolCall?: { id: string; name: string; input: { timezone: string } } };
type ModelAnswer = { text: string; toolCall?: { id: string; name: string; input: { timezone: string } }; usage: { inputTokens: number; outputTokens: number } };

/** A harness running the clock turn as a new DBOS workflow per turn, its system database at `databaseUrl`. */
export async function createPeerHarness(databaseUrl: string): Promise<TurnHarness> {
  // Per turn (runTurn is awaited before the next starts): model calls, tool calls, the last tool result's text.
  let modelCalls = 0;
  let toolCalls = 0;
  let lastResult = "";

  /** The dev-echo fake: offered one tool, it calls it once, then answers with its result. */
  const model = DBOS.registerStep(
    async (messages: Message[], tools: string[]): Promise<ModelAnswer> => {
      const index = modelCalls++;
      let userIndex = -1;
      for (let i = messages.length - 1; i >= 0 && userIndex < 0; i--) if (messages[i].role === "user") userIndex = i;
      const userText = userIndex >= 0 ? messages[userIndex].content : "";
      const results = messages.slice(userIndex + 1).filter((message) => message.role === "tool").map((message) => message.content);
      if (results.length === 0 && tools.length > 0) return { text: "", toolCall: { id: `call_${index}_0`, name: tools[0], input: { timezone: userText } }, usage: { inputTokens: userText.length, outputTokens: 16 } };
      const answer = results.length > 0 ? results.join("\n") : userText;
      return { text: answer, usage: { inputTokens: answer.length, outputTokens: answer.length } };
    },
    { name: "model" },
  );
  const tool = DBOS.registerStep(
    async (input: { timezone: string }): Promise<string> => {
      toolCalls++;
      lastResult = JSON.stringify(currentTime(input.timezone));
      return lastResult;
    },
    { name: CURRENT_TIME_TOOL.name },
  );
  const turn = DBOS.registerWorkflow(
    async (userMessage: string): Promise<string> => {
      const messages: Message[] = [{ role: "system", content: "You tell the time." }, { role: "user", content: userMessage }];
      for (let step = 0; step < 8; step++) {
        const answer = await model(messages, [CURRENT_TIME_TOOL.name]);
        if (!answer.toolCall) return answer.text;
        messages.push({ role: "assistant", content: answer.text, toolCall: answer.toolCall });
        messages.push({ role: "tool", content: await tool(answer.toolCall.input) });
      }
      throw new Error("the turn did not end in 8 steps");
    },
    { name: "clock-turn" },
  );

  DBOS.setConfig({ name: "kindgi-bench-peer", systemDatabaseUrl: databaseUrl, logLevel: "error" });
  await DBOS.launch();
  return {
    async runTurn(userMessage: string): Promise<string> {
      modelCalls = 0;
      toolCalls = 0;
      // Called directly, a registered workflow runs as a new workflow (a new id) and resolves to its result.
      const answer = await turn(userMessage);
      if (modelCalls !== 2 || toolCalls !== 1) throw new Error(`DBOS turn made ${modelCalls} model calls, ${toolCalls} tool calls (expected 2, 1)`);
      if (answer !== lastResult) throw new Error(`DBOS answer ${JSON.stringify(answer)} is not the tool result ${lastResult}`);
      return answer;
    },
    async close() {
      await DBOS.shutdown();
    },
  };
}
