/**
 * Tools built into Kindgi (`transport: "native"`, bare ids): they need no registration, resolve in every tenant and
 * project like registered tools, and run in-process. Their ids are reserved: POST /v1/tools refuses them.
 */
import { isAppError } from "@/lib/errors";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import { currentTime } from "./current-time";
import { recall, recallFirstVersion } from "./recall";
import { remember } from "./remember";
import { toolError, type NativeTool, type NativeToolContext, type NativeToolResult } from "./types";

export type { NativeToolContext, NativeToolResult } from "./types";

/** Each version of each built-in tool; a tool's versions highest first. */
const TOOLS: readonly NativeTool[] = [currentTime, remember, recall, recallFirstVersion];

/** The manifests of every built-in tool (each version of each). */
export const BUILTIN_TOOLS: readonly ToolManifest[] = TOOLS.map((tool) => tool.manifest);

/** When built-in tools first shipped: what their views show as registration time. */
export const BUILTIN_TOOLS_RELEASED_AT = "2026-11-30T00:00:00.000Z";

export function isBuiltinToolId(id: string): boolean {
  return TOOLS.some((tool) => tool.manifest.id === id);
}

/** The built-in tool's versions, highest first ([] for an id that is not built in). */
export function builtinToolVersions(id: string): string[] {
  return TOOLS.filter((tool) => tool.manifest.id === id).map((tool) => tool.manifest.version);
}

/** The built-in tool `id` at `version` (any version when none is given), or undefined. */
export function getBuiltinTool(id: string, version?: string): ToolManifest | undefined {
  return TOOLS.find((tool) => tool.manifest.id === id && (version === undefined || tool.manifest.version === version))?.manifest;
}

/**
 * Runs one call of a built-in tool. `input` has been validated against the manifest's `input` (defaults filled);
 * the kernel validates the output. A refusal the model can act on (an unknown time zone, a fact the store refuses, a
 * cancelled call) is a `tool-error`; a failure of the runtime itself (the database is down) is thrown.
 */
export async function invokeNativeTool(manifest: ToolManifest, input: unknown, context: NativeToolContext): Promise<NativeToolResult> {
  const tool = TOOLS.find((candidate) => candidate.manifest.id === manifest.id && candidate.manifest.version === manifest.version);
  if (!tool) return toolError(`${manifest.id}@${manifest.version} is not a tool built into Kindgi`);
  if (context.signal?.aborted) return toolError("the call was cancelled before it started");
  if (typeof input !== "object" || input === null || Array.isArray(input)) return toolError("the input must be an object");
  try {
    return await tool.invoke(input as Record<string, unknown>, context);
  } catch (error) {
    if (isAppError(error)) return toolError(error.message);
    throw error;
  }
}
