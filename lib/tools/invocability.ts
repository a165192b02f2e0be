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

/**
 * The invoker a manifest needs, following its `transport`: `"mcp"` runs on its MCP server whatever else it declares;
 * `"native"` and `"auto"` run in this server when they can (a built-in tool, the HTTP `spec`, a pack handler, from
 * its folder or its OCI artifact) and `"auto"` falls back to the `mcpEndpoint` otherwise.
 */
export function toolInvoker(manifest: Pick<ToolManifest, "id" | "transport" | "spec" | "codeArtifactRef" | "mcpEndpoint">): ToolInvoker {
  if (manifest.transport === "mcp") return "mcp";
  if (manifest.transport === "native" && isBuiltinToolId(manifest.id)) return "native";
  if (manifest.spec?.kind === "http") return "http";
  if (manifest.codeArtifactRef) return "handler";
  if (manifest.mcpEndpoint !== undefined && manifest.transport !== "native") return "mcp";
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

/** The fields only a pack handler's runtime reads, and what each does there. */
const HANDLER_ONLY_FIELDS: ReadonlyArray<{ path: string; present: (manifest: ToolManifest) => boolean; what: string }> = [
  { path: "/sandbox", present: (manifest) => manifest.sandbox !== undefined, what: "sandbox sets the isolation of a pack handler" },
  { path: "/limits", present: (manifest) => manifest.limits !== undefined, what: "limits cap a pack handler's sandbox" },
  { path: "/needs", present: (manifest) => (manifest.needs?.length ?? 0) > 0, what: "needs slots are injected into a pack handler's context (context.needs)" },
  { path: "/needsSpec/env", present: (manifest) => Object.keys(manifest.needsSpec?.env ?? {}).length > 0, what: "needsSpec.env reaches a pack handler's context.env" },
  { path: "/needsSpec/config", present: (manifest) => Object.keys(manifest.needsSpec?.config ?? {}).length > 0, what: "needsSpec.config reaches a pack handler's context.config" },
  { path: "/needsSpec/secrets", present: (manifest) => Object.keys(manifest.needsSpec?.secrets ?? {}).length > 0, what: "needsSpec.secrets are resolved for a pack handler (context.resolveSecret, context.env)" },
];

/**
 * Declarations that have no effect on how this manifest runs, each with its pointer and why: the handler-only fields
 * on a tool run by its HTTP `spec` or on an MCP server (reached by URL, `mcp+http://` / `mcp+sse://`, or started over
 * stdio: a stdio server always runs under bubblewrap behind its tool's network policy, whatever `sandbox` says, and
 * gets no `limits`, slots or handler context), and `network` on an MCP URL (which obeys the server's rules for MCP
 * endpoints, not the manifest's policy).
 */
export function ineffectiveDeclarations(manifest: ToolManifest): Array<{ path: string; message: string }> {
  const invoker = toolInvoker(manifest);
  const isMcpUrl = invoker === "mcp" && /^mcp\+(http|sse):\/\//.test(manifest.mcpEndpoint ?? "");
  const isMcpStdio = invoker === "mcp" && (manifest.mcpEndpoint ?? "").startsWith("mcp+stdio://");
  if (invoker !== "http" && !isMcpUrl && !isMcpStdio) return [];
  const runsBy =
    invoker === "http"
      ? "this tool runs its HTTP `spec` and no handler"
      : isMcpUrl
        ? "this tool runs on an MCP server reached by URL, not in a handler"
        : "this tool runs on a stdio MCP server, which always runs under bubblewrap behind the tool's network policy, not in a handler";
  const found = HANDLER_ONLY_FIELDS.filter((field) => field.present(manifest)).map((field) => ({ path: field.path, message: `has no effect: ${field.what}, and ${runsBy}` }));
  if (isMcpUrl && manifest.network !== undefined)
    found.push({ path: "/network", message: "has no effect: an MCP endpoint reached by URL obeys this server's rules for MCP endpoints, not the tool's network policy" });
  return found;
}
