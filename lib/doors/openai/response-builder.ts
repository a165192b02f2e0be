/**
 * A run as an OpenAI Response object, built from its journal (and, while it streams, the model's live words): each
 * model call's words are a `message` item, each tool call an `mcp_call` item (`server_label` naming this server), a
 * call waiting for a person an `mcp_approval_request` item. Streaming, the same builder emits the standard event
 * sequence (`response.created`, `response.output_item.added`, `response.output_text.delta`, `response.mcp_call.*`,
 * `response.output_item.done`, `response.completed`, …), so the streamed items and the stored response agree: the
 * text deltas put together are the response's `output_text`.
 */
import type { JournalEvent, RunDelta } from "@/lib/kernel/types";
import type { LiveDelta } from "@/lib/services/live-deltas";

export const SERVER_LABEL = "kindgi";

type OutputText = { type: "output_text"; text: string; annotations: unknown[] };
type MessageItem = { type: "message"; id: string; status: "in_progress" | "completed"; role: "assistant"; content: OutputText[] };
type McpCallItem = { type: "mcp_call"; id: string; server_label: string; name: string; arguments: string; status: "in_progress" | "completed" | "failed"; output: string | null; error: string | null };
type ApprovalRequestItem = { type: "mcp_approval_request"; id: string; server_label: string; name: string; arguments: string };
export type OutputItem = MessageItem | McpCallItem | ApprovalRequestItem;

/** An approval of the run: what its request item shows. */
export type AskedApproval = { id: string; callId: string; name: string; arguments: unknown };

/** What the builder does not read from the journal: the run's summary and its approvals. */
export type ResponseFrame = {
  runId: string;
  /** The sequence number after which the response begins: 0, or the wait that the previous response ended with. */
  from: number;
  model: string;
  createdAt: string;
  previousResponseId: string | null;
  conversationId: string | null;
  background: boolean;
  store: boolean;
  /** The run's approvals by id: an `approval-requested` event becomes a request item with the approval's arguments. */
  approvals: Map<string, AskedApproval>;
};

export type ResponseStatus = "queued" | "in_progress" | "completed" | "failed" | "cancelled" | "incomplete";

export type StreamEvent = { type: string; [key: string]: unknown };

/**
 * A run's responses: the first is `resp_<runId>`; one that continues the run after the approvals a response ended
 * with is `resp_<runId>_<seq>`, `seq` being the sequence number of that wait (the last approval request of it).
 */
export const responseIdOf = (runId: string, from = 0) => (from > 0 ? `resp_${runId}_${from}` : `resp_${runId}`);

/** The run and the start a response id names, or null for an id this server did not give. */
export function parseResponseId(responseId: string): { runId: string; from: number } | null {
  const match = /^resp_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:_([1-9][0-9]{0,9}))?$/i.exec(responseId);
  return match ? { runId: match[1].toLowerCase(), from: match[2] ? Number(match[2]) : 0 } : null;
}

/**
 * Where the run's responses end: each wait for a person — a group of consecutive `approval-requested` events — by the
 * sequence number of its last request. A response that begins after `from` ends at the first of them after it.
 */
export function waitPoints(events: readonly JournalEvent[]): number[] {
  const points: number[] = [];
  events.forEach((event, index) => {
    if (event.type === "approval-requested" && events[index + 1]?.type !== "approval-requested") points.push(event.seq);
  });
  return points;
}

/** Where the response that begins after `from` ends: the next wait point, or null while it runs to the journal's end. */
export const endOf = (points: readonly number[], from: number): number | null => points.find((point) => point > from) ?? null;

/** Where the run's last response begins: the last wait point before its last event (0 when none). */
export function lastStartOf(points: readonly number[], lastSeq: number): number {
  return points.filter((point) => point < lastSeq).pop() ?? 0;
}

const textOf = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value ?? null));

export class ResponseBuilder {
  readonly items: OutputItem[] = [];
  private readonly messages = new Map<number, { index: number; streamed: string }>();
  private readonly calls = new Map<string, number>();
  private readonly runHex: string;
  private sequence = 0;
  status: ResponseStatus = "in_progress";
  error: { code: string; message: string } | null = null;
  usage = { input_tokens: 0, output_tokens: 0 };

  constructor(
    private readonly frame: ResponseFrame,
    /** Receives each stream event (none when building a stored response). */
    private readonly emit: (event: StreamEvent) => void = () => {},
  ) {
    this.runHex = frame.runId.replaceAll("-", "");
  }

  private send(type: string, fields: Record<string, unknown>): void {
    this.emit({ type, sequence_number: this.sequence++, ...fields });
  }

  /** The response as it stands. */
  response(): Record<string, unknown> {
    const text = this.items.flatMap((item) => (item.type === "message" ? item.content.map((part) => part.text) : [])).join("");
    return {
      id: responseIdOf(this.frame.runId, this.frame.from),
      object: "response",
      created_at: Math.floor(Date.parse(this.frame.createdAt) / 1000),
      status: this.status,
      background: this.frame.background,
      error: this.error,
      incomplete_details: null,
      instructions: null,
      max_output_tokens: null,
      model: this.frame.model,
      output: this.items.map((item) => structuredClone(item)),
      output_text: text,
      parallel_tool_calls: true,
      previous_response_id: this.frame.previousResponseId,
      ...(this.frame.conversationId ? { conversation: { id: this.frame.conversationId } } : {}),
      reasoning: null,
      store: this.frame.store,
      temperature: null,
      text: { format: { type: "text" } },
      tool_choice: "auto",
      tools: [],
      top_p: null,
      truncation: "disabled",
      usage: { input_tokens: this.usage.input_tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: this.usage.output_tokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: this.usage.input_tokens + this.usage.output_tokens },
      user: null,
      metadata: { runId: this.frame.runId },
    };
  }

  start(): void {
    this.send("response.created", { response: this.response() });
    this.send("response.in_progress", { response: this.response() });
  }

  private openMessage(callIndex: number): { index: number; streamed: string } {
    let open = this.messages.get(callIndex);
    if (open) return open;
    const item: MessageItem = { type: "message", id: `msg_${this.runHex}_${callIndex}`, status: "in_progress", role: "assistant", content: [] };
    open = { index: this.items.length, streamed: "" };
    this.items.push(item);
    this.messages.set(callIndex, open);
    this.send("response.output_item.added", { output_index: open.index, item: structuredClone(item) });
    item.content.push({ type: "output_text", text: "", annotations: [] });
    this.send("response.content_part.added", { item_id: item.id, output_index: open.index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
    return open;
  }

  private appendText(callIndex: number, text: string): void {
    if (!text) return;
    const open = this.openMessage(callIndex);
    const item = this.items[open.index] as MessageItem;
    open.streamed += text;
    item.content[0].text += text;
    this.send("response.output_text.delta", { item_id: item.id, output_index: open.index, content_index: 0, delta: text, logprobs: [] });
  }

  /**
   * A model's words as they are written: a delta, or (`snapshot`) the call's text so far for a stream that joined
   * mid-call. A later attempt of a call starts its text over: the stream cannot, so it is ignored.
   */
  delta(delta: RunDelta | LiveDelta): void {
    if (delta.attempt !== 1 || !delta.text) return;
    if ("snapshot" in delta && delta.snapshot) {
      const streamed = this.messages.get(delta.callIndex)?.streamed ?? "";
      if (delta.text.startsWith(streamed)) this.appendText(delta.callIndex, delta.text.slice(streamed.length));
      return;
    }
    this.appendText(delta.callIndex, delta.text);
  }

  /** A journaled event of the run. */
  event(event: JournalEvent): void {
    switch (event.type) {
      case "model-called": {
        const { index, text, usage } = event.data;
        this.usage.input_tokens += usage.inputTokens;
        this.usage.output_tokens += usage.outputTokens;
        const open = this.messages.get(index);
        const said = text ?? "";
        // The journaled words are the call's: what the stream has not carried yet comes now.
        if (said.startsWith(open?.streamed ?? "")) this.appendText(index, said.slice(open?.streamed.length ?? 0));
        const closing = this.messages.get(index);
        if (closing) {
          const item = this.items[closing.index] as MessageItem;
          item.status = "completed";
          this.send("response.output_text.done", { item_id: item.id, output_index: closing.index, content_index: 0, text: item.content[0].text, logprobs: [] });
          this.send("response.content_part.done", { item_id: item.id, output_index: closing.index, content_index: 0, part: structuredClone(item.content[0]) });
          this.send("response.output_item.done", { output_index: closing.index, item: structuredClone(item) });
        }
        return;
      }
      case "tool-call-started":
        this.openCall(event.data.callId, event.data.toolId, event.data.arguments);
        return;
      case "approval-requested": {
        const asked = this.frame.approvals.get(event.data.approvalId);
        if (event.seq > this.frame.from) this.approvalRequest(asked ?? { id: event.data.approvalId, name: event.data.toolId ?? "session", arguments: {} });
        return;
      }
      case "tool-call-completed": {
        // A call that never started (a person rejected it, its approval expired) is shown failed, with what was asked.
        const asked = [...this.frame.approvals.values()].find((approval) => approval.callId === event.data.callId);
        const index = this.calls.get(event.data.callId) ?? this.openCall(event.data.callId, event.data.toolId, asked?.arguments ?? {});
        const item = this.items[index] as McpCallItem;
        if (event.data.ok) {
          item.status = "completed";
          item.output = textOf(event.data.output);
        } else {
          item.status = "failed";
          item.error = `${event.data.error.reason ?? event.data.error.kind}: ${event.data.error.message}`;
        }
        this.send(item.status === "completed" ? "response.mcp_call.completed" : "response.mcp_call.failed", { item_id: item.id, output_index: index });
        this.send("response.output_item.done", { output_index: index, item: structuredClone(item) });
        return;
      }
      case "run-completed":
        this.status = "completed";
        return;
      case "run-failed":
        this.status = "failed";
        this.error = { code: event.data.failure.code, message: event.data.failure.message };
        return;
      case "run-cancelled":
        this.status = "cancelled";
        return;
      default:
        return;
    }
  }

  /** An `mcp_call` item, in progress; its output index. */
  private openCall(callId: string, toolId: string, args: unknown): number {
    const item: McpCallItem = { type: "mcp_call", id: `mcp_${this.runHex}_${callId}`, server_label: SERVER_LABEL, name: toolId, arguments: JSON.stringify(args ?? {}), status: "in_progress", output: null, error: null };
    const index = this.items.length;
    this.calls.set(callId, index);
    this.items.push(item);
    this.send("response.output_item.added", { output_index: index, item: structuredClone(item) });
    this.send("response.mcp_call_arguments.done", { item_id: item.id, output_index: index, arguments: item.arguments });
    this.send("response.mcp_call.in_progress", { item_id: item.id, output_index: index });
    return index;
  }

  /** Whether the response ends with a call waiting for a person. */
  get asksForApproval(): boolean {
    return this.items.some((item) => item.type === "mcp_approval_request");
  }

  /** A call waiting for a person: an approval request item (the response ends with it, completed). */
  approvalRequest(approval: { id: string; name: string; arguments: unknown }): void {
    const item: ApprovalRequestItem = { type: "mcp_approval_request", id: approval.id, server_label: SERVER_LABEL, name: approval.name, arguments: JSON.stringify(approval.arguments ?? {}) };
    if (this.items.some((existing) => existing.type === "mcp_approval_request" && existing.id === approval.id)) return;
    this.items.push(item);
    this.send("response.output_item.added", { output_index: this.items.length - 1, item: structuredClone(item) });
    this.send("response.output_item.done", { output_index: this.items.length - 1, item: structuredClone(item) });
  }

  /** The last event: the response as it ended. */
  finish(): void {
    if (this.status === "in_progress") this.status = "completed";
    const type = this.status === "failed" ? "response.failed" : this.status === "cancelled" ? "response.failed" : this.status === "incomplete" ? "response.incomplete" : "response.completed";
    this.send(type, { response: this.response() });
  }
}
