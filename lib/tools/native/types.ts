import type { DbTx } from "@/lib/db";
import type { ToolManifest } from "@/lib/tools/manifest-schema";

/** What the kernel provides for one call of a built-in tool: the run it belongs to, a clock, cancellation, its transaction. */
export type NativeToolContext = {
  tenantId: string;
  projectId: string;
  conversationId: string | null;
  runId: string;
  userId: string;
  now: () => Date;
  signal?: AbortSignal;
  /** The kernel's transaction, so a tool's writes commit with the step that records the call. */
  db?: DbTx;
};

/**
 * The outcome of one call: the output (the kernel validates it against the manifest's `output`), or an error the model
 * sees: `invalid-arguments` when the arguments are well-formed but wrong (the model can correct them: the default
 * tool-error policy sends it back once), `tool-error` otherwise.
 */
export type NativeToolResult = { ok: true; output: unknown } | { ok: false; error: { kind: "tool-error" | "invalid-arguments"; message: string } };

/** A built-in tool: its manifest and its implementation, which gets the input already validated with defaults filled. */
export type NativeTool = {
  manifest: ToolManifest;
  invoke: (input: Record<string, unknown>, context: NativeToolContext) => Promise<NativeToolResult>;
};

export const toolError = (message: string): NativeToolResult => ({ ok: false, error: { kind: "tool-error", message } });

/** Arguments the schema accepts but the tool cannot use (an unknown time zone): the model can correct them. */
export const invalidArguments = (message: string): NativeToolResult => ({ ok: false, error: { kind: "invalid-arguments", message } });
