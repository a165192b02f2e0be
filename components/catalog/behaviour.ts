/**
 * A tool's behaviour in words, from its manifest: what approvals it meets, where it may reach, what it may use.
 * Pure functions, shared by the catalog's rows and the tool page.
 */
import type { NetworkPolicy, ToolManifest } from "@/lib/client/tool-types";

type Behaviour = { mutating?: boolean; needsApprovalWhenUnattended?: boolean };

/**
 * The approval a call meets: a read-only call passes; a mutating one (mutating is the default) asks on first use;
 * `needsApprovalWhenUnattended` also asks on every call of an unattended run.
 */
export function approvalInWords(tool: Behaviour): string[] {
  const mutating = tool.mutating !== false;
  const unattended = tool.needsApprovalWhenUnattended === true;
  const words = mutating ? ["asks on first use"] : [unattended ? "passes when attended" : "passes"];
  if (unattended) words.push("asks on every unattended call");
  return words;
}

/** Where the tool may connect: "may reach api.example.com only", "no network", … */
export function networkInWords(policy: NetworkPolicy | undefined): string {
  if (!policy) return "may reach public addresses (no policy declared)";
  if (policy.kind === "none") return "no network";
  if (policy.kind !== "allowlist") return "may reach public addresses";
  if (policy.hosts.length === 0) return "may reach no host";
  return `may reach ${policy.hosts.join(", ")} only`;
}

/** Memory and CPU limits in one line: "256 MB · 2 s CPU". */
export function limitsInWords(limits: ToolManifest["limits"]): string {
  if (!limits) return "the runtime's defaults";
  const cpu = limits.cpuMs >= 1000 && limits.cpuMs % 100 === 0 ? `${limits.cpuMs / 1000} s` : `${limits.cpuMs} ms`;
  return `${limits.memMB} MB · ${cpu} CPU`;
}

/** The isolation posture the runtime enforces around the handler, as declared. */
export function sandboxInWords(sandbox: ToolManifest["sandbox"]): string {
  return sandbox ?? "not declared";
}

/** How the tool is reached: http, mcp, native or handler (a registered manifest without an HTTP spec). */
export function transportInWords(manifest: Pick<ToolManifest, "transport" | "spec"> | { transport: string; spec?: unknown }): "http" | "mcp" | "native" | "handler" {
  if (manifest.transport === "mcp") return "mcp";
  if (manifest.transport === "native") return "native";
  return manifest.spec ? "http" : "handler";
}

/** An effect as a badge says it: "writes memory:facts", "network". */
export function effectInWords(effect: { kind: string; resource?: string }): string {
  return effect.resource ? `${effect.kind} ${effect.resource}` : effect.kind;
}
