/**
 * Row (g) of bench/kernel-turns.ts: the same clock turn with LangGraph JS (`@langchain/langgraph`, a dev dependency of
 * bench/ only) as a durable execution: a `StateGraph` over `MessagesAnnotation` — a model node, a `ToolNode` with the
 * `current-time` tool, `toolsCondition` between them — compiled with the `PostgresSaver` checkpointer
 * (`@langchain/langgraph-checkpoint-postgres`) on the PostgreSQL database it is given. Each turn is a new thread
 * (a new `thread_id`), so each is a new durable execution that the checkpointer records step by step; the graph runs
 * with LangGraph's default durability ("async": a step's checkpoint is written while the next step runs, and
 * `invoke` returns once every write is done).
 *
 * The fake model is a LangChain chat model (`BaseChatModel`) that answers like our dev-echo provider: with no tool
 * result after the last user message it calls the first offered tool with `{timezone: <user message>}`; once it sees
 * the result, the answer is the result's text. Every turn is checked: exactly 2 model calls, 1 tool call, and an
 * answer equal to the tool's result text.
 *
 * `.mts`, outside the root type-check, like bench/peer/ai-sdk-turn.mts (`npx tsc -p bench`).
 */
import { randomUUID } from "node:crypto";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { z } from "zod";
import type { TurnHarness } from "../turn-harness";
import { currentTime, CURRENT_TIME_TOOL } from "./clock.mjs";

const text = (message: BaseMessage): string => (typeof message.content === "string" ? message.content : message.content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join(""));

/** The dev-echo fake as a LangChain chat model: offered one tool, it calls it once, then answers with its result. */
class FakeEchoModel extends BaseChatModel {
  calls = 0;
  constructor(private readonly toolName: string) {
    super({});
  }
  _llmType(): string {
    return "fake-echo";
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const index = this.calls++;
    let userIndex = -1;
    for (let i = messages.length - 1; i >= 0 && userIndex < 0; i--) if (messages[i].getType() === "human") userIndex = i;
    const userText = userIndex >= 0 ? text(messages[userIndex]) : "";
    const results = messages.slice(userIndex + 1).filter((message) => message.getType() === "tool").map(text);
    const message =
      results.length === 0
        ? new AIMessage({ content: "", tool_calls: [{ id: `call_${index}_0`, name: this.toolName, args: { timezone: userText }, type: "tool_call" }], usage_metadata: { input_tokens: userText.length, output_tokens: 16, total_tokens: userText.length + 16 } })
        : new AIMessage({ content: results.join("\n"), usage_metadata: { input_tokens: results.join("\n").length, output_tokens: results.join("\n").length, total_tokens: 2 * results.join("\n").length } });
    return { generations: [{ text: text(message), message }] };
  }
}

/** A harness running the clock turn as a new LangGraph thread per turn, checkpointed in PostgreSQL at `databaseUrl`. */
export async function createPeerHarness(databaseUrl: string): Promise<TurnHarness> {
  let toolCalls = 0;
  let lastResult = "";
  const currentTimeTool = tool(
    async ({ timezone }: { timezone: string }) => {
      toolCalls++;
      lastResult = JSON.stringify(currentTime(timezone));
      return lastResult;
    },
    { name: CURRENT_TIME_TOOL.name, description: CURRENT_TIME_TOOL.description, schema: z.object({ timezone: z.string().describe(CURRENT_TIME_TOOL.timezone) }) },
  );
  const model = new FakeEchoModel(CURRENT_TIME_TOOL.name);
  // The pool `PostgresSaver.fromConnString` would make (pg's defaults), made here to hear its idle clients' errors:
  // the bench drops the database at the end, and pg raises those as unhandled 'error' events otherwise.
  const pool = new pg.Pool({ connectionString: databaseUrl });
  pool.on("error", () => {});
  const checkpointer = new PostgresSaver(pool);
  await checkpointer.setup();
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("model", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("tools", new ToolNode([currentTimeTool]))
    .addEdge(START, "model")
    .addConditionalEdges("model", toolsCondition, ["tools", END])
    .addEdge("tools", "model")
    .compile({ checkpointer });
  return {
    async runTurn(userMessage: string): Promise<string> {
      model.calls = 0;
      toolCalls = 0;
      const state = await graph.invoke({ messages: [{ role: "system", content: "You tell the time." }, { role: "user", content: userMessage }] }, { configurable: { thread_id: randomUUID() } });
      const answer = text(state.messages[state.messages.length - 1]);
      if (model.calls !== 2 || toolCalls !== 1) throw new Error(`LangGraph turn made ${model.calls} model calls, ${toolCalls} tool calls (expected 2, 1)`);
      if (answer !== lastResult) throw new Error(`LangGraph answer ${JSON.stringify(answer)} is not the tool result ${lastResult}`);
      return answer;
    },
    async close() {
      await checkpointer.end();
    },
  };
}
