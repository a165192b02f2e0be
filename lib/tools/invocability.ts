/**
 * Whether this server can invoke a tool, and how: the one predicate behind the kernel's invoker choice
 * (lib/services/kernel-environment.ts) and the warnings of tool registration and agent validation.
 */
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import { isBuiltinToolId } from "@/lib/tools/native";
import { stdioAllowed } from "@/lib/tools/mcp/connection";

/** How a manifest is run: `native` (built into Kindgi), `http` (its declarative `spec`), `mcp`, `handler` (a pack's `codeArtifactRef`), or `none` (nothing says how). */
export type ToolInvoker = "native" | "http" | "mcp" | "handler" | "none";

/**
 * The invokers this server has. A transport added later (an MCP client, a handler sandbox) adds its kind here and
 * its branch in the kernel's `invokeTool`; registration and agent warnings follow from this set.
 */
const AVAILABLE_INVOKERS: ReadonlySet<ToolInvoker> = new Set<ToolInvoker>(["native", "http", "handler", "mcp"]);

export type ToolInvocability =
  | { invocable: true; invoker: ToolInvoker }
  | {
      invocable: false;
      invoker: ToolInvoker;
      /** Why, as a sentence fragment after "cannot be invoked by this server: ". */
      reason: string;
      /** The manifest field the reason is about (a JSON pointer), for registration warnings. */
      path: string;
      /** The failure reason a call reports (`transport-unavailable` when absent). */
      failureReason?: string;
    };

/** The invoker a manifest needs, in the order the kernel tries them. */
export function toolInvoker(manifest: Pick<ToolManifest, "id" | "transport" | "spec" | "codeArtifactRef" | "mcpEndpoint">): ToolInvoker {
  if (manifest.transport === "native" && isBuiltinToolId(manifest.id)) return "native";
  if (manifest.spec?.kind === "http") return "http";
  if (manifest.transport === "mcp" || manifest.mcpEndpoint !== undefined) return "mcp";
  if (manifest.codeArtifactRef) return "handler";
  return "none";
}

const UNAVAILABLE: Record<ToolInvoker, { reason: string; path: string }> = {
  native: { reason: "it is not a tool built into Kindgi", path: "/transport" },
  http: { reason: "HTTP tools are not available", path: "/spec" },
  mcp: { reason: "MCP tools are not available", path: "/transport" },
  handler: { reason: "pack handlers (codeArtifactRef) are not available", path: "/codeArtifactRef" },
  none: { reason: "it has neither an HTTP `spec` nor a handler, so nothing says how to run it", path: "/spec" },
};

/** Whether this server can invoke `manifest`, and if not, why. */
export function toolInvocability(manifest: Pick<ToolManifest, "id" | "transport" | "spec" | "codeArtifactRef" | "mcpEndpoint">): ToolInvocability {
  const invoker = toolInvoker(manifest);
  if (invoker === "handler" && manifest.codeArtifactRef?.kind !== "filesystem") {
    return {
      invocable: false,
      invoker,
      reason: `"${manifest.codeArtifactRef?.kind}" handler artifacts are not supported by this server (only "filesystem" handlers run)`,
      path: "/codeArtifactRef/kind",
      failureReason: "artifact-kind-unsupported",
    };
  }
  if (invoker === "mcp" && manifest.mcpEndpoint?.startsWith("mcp+stdio://") && !stdioAllowed())
    return { invocable: false, invoker, reason: "stdio MCP endpoints are disabled on this server (set KINDGI_MCP_STDIO=allow to enable them)", path: "/mcpEndpoint" };
  if (invoker === "mcp" && manifest.mcpEndpoint === undefined) return { invocable: false, invoker, reason: "an MCP tool needs an mcpEndpoint", path: "/mcpEndpoint" };
  if (AVAILABLE_INVOKERS.has(invoker)) return { invocable: true, invoker };
  return { invocable: false, invoker, ...UNAVAILABLE[invoker] };
}

/** The message of a tool this server cannot invoke: `tool <id>@<version> cannot be invoked by this server: <reason>`. */
export function notInvocableMessage(manifest: Pick<ToolManifest, "id" | "version">, reason: string): string {
  return `tool ${manifest.id}@${manifest.version} cannot be invoked by this server: ${reason}`;
}
