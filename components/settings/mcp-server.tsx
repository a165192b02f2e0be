"use client";

/**
 * `/settings/mcp-server`: Kindgi as an MCP server. The project's endpoint URL and each client's configuration for
 * it (or for one toolset); the project's toolsets — each a named selection of tools and agents with version ranges,
 * served at its own URL — with what each reference resolves to now; create, edit and delete them.
 */
import { useRef, useState, useSyncExternalStore } from "react";
import { Badge, Button, Dialog, DialogContent, DialogFooter, EmptyState, ErrorBanner, PageHeader, SkeletonRows, Spinner } from "@/components/ui";
import { formatTime } from "@/components/runs/run-bits";
import { useCurrentProject } from "@/lib/client/current-project";
import { mcpServerName, projectMcpUrl, toolsetMcpUrl } from "@/lib/client/mcp-client-config";
import { resolutionOf, type ReferenceKind } from "@/lib/client/toolset-draft";
import type { Toolset } from "@/lib/client/toolset-types";
import { useDeleteToolset } from "@/lib/client/use-delete-toolset";
import { useIdentity } from "@/lib/client/use-identity";
import { useToolsets } from "@/lib/client/use-toolsets";
import { McpClientConfigs, type McpTarget } from "./mcp-client-configs";
import { SettingsTable, td } from "./settings-nav";
import { ToolsetDialog } from "./toolset-form";
import { CopyField, roleNote } from "./trigger-bits";

const PROJECT_TARGET = "project";

/** This console's origin (the API is served beside it); empty while rendering on the server. */
function useOrigin(): string {
  return useSyncExternalStore(
    () => () => {},
    () => window.location.origin,
    () => "",
  );
}

export function McpServerPage() {
  const { projectId, projects } = useCurrentProject();
  const origin = useOrigin();
  const identity = useIdentity();
  const toolsets = useToolsets(projectId);
  const [dialog, setDialog] = useState<{ toolset?: Toolset } | null>(null);
  const [target, setTarget] = useState(PROJECT_TARGET);
  const connectHeading = useRef<HTMLHeadingElement>(null);
  const role = identity.data?.user.role;
  const canWrite = Boolean(role) && role !== "viewer";
  const note = roleNote(role, "toolsets");
  const project = projects.find((candidate) => candidate.id === projectId);
  const projectName = project?.name ?? "project";
  const rows = toolsets.data ?? [];

  const targets: McpTarget[] = [
    { value: PROJECT_TARGET, label: `Whole project: ${projectName}`, serverName: mcpServerName(projectName), url: projectMcpUrl(origin, projectId) },
    ...rows.map((toolset) => ({ value: toolset.id, label: `Toolset ${toolset.name}`, serverName: mcpServerName(toolset.name), url: toolsetMcpUrl(origin, toolset.mcpPath) })),
  ];
  const newButton = (
    <Button variant="primary" disabled={!canWrite} onClick={() => setDialog({})}>
      New toolset
    </Button>
  );

  return (
    <div>
      <PageHeader
        title="MCP server"
        description="MCP clients (Claude Desktop, VS Code, Claude Code, any Streamable HTTP client) can call this project's tools and agents through Kindgi, with its approvals, budgets and audit log. Point a client at the project's endpoint, or at a toolset's to give it less."
        actions={newButton}
      />
      {note ? <p className="mb-3 rounded-md border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800">{note}</p> : null}

      <section aria-labelledby="mcp-connect" className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
        <h2 id="mcp-connect" ref={connectHeading} tabIndex={-1} className="mb-3 text-base font-semibold focus:outline-none">
          Connect a client
        </h2>
        <McpClientConfigs targets={targets} value={target} onValueChange={setTarget} />
      </section>

      <section aria-labelledby="mcp-toolsets" className="mt-8">
        <h2 id="mcp-toolsets" className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">
          Toolsets
        </h2>
        <p className="mt-1 mb-4 max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
          Each reference names a tool or agent and a version range; the toolset serves the highest active version in the range, so registering 1.4.3 moves <code className="font-mono text-xs">^1</code> along and a client needs no new configuration.
        </p>
        <ErrorBanner error={toolsets.error} title="Cannot list the toolsets" action={<Button size="sm" onClick={() => void toolsets.refetch()}>Retry</Button>} />
        {toolsets.isPending ? <SkeletonRows rows={3} label="Loading the toolsets" /> : null}
        {toolsets.data && rows.length === 0 ? (
          <EmptyState title="No toolsets yet" action={canWrite ? newButton : undefined}>
            A toolset serves a chosen few of this project&apos;s tools and agents at its own URL — say, the support tools for the helpdesk&apos;s assistant — each pinned to a version range. Without one, a client sees every tool of the project.
          </EmptyState>
        ) : null}
        {rows.length ? (
          <ul className="space-y-3">
            {rows.map((toolset) => (
              <ToolsetCard
                key={toolset.id}
                toolset={toolset}
                url={toolsetMcpUrl(origin, toolset.mcpPath)}
                canWrite={canWrite}
                onEdit={() => setDialog({ toolset })}
                onConnect={() => {
                  setTarget(toolset.id);
                  connectHeading.current?.scrollIntoView({ block: "start", behavior: "smooth" });
                  connectHeading.current?.focus({ preventScroll: true });
                }}
              />
            ))}
          </ul>
        ) : null}
      </section>

      {dialog ? <ToolsetDialog projectId={projectId} toolset={dialog.toolset} onClose={() => setDialog(null)} /> : null}
    </div>
  );
}

function ToolsetCard({ toolset, url, canWrite, onEdit, onConnect }: { toolset: Toolset; url: string; canWrite: boolean; onEdit(): void; onConnect(): void }) {
  const remove = useDeleteToolset();
  const [confirm, setConfirm] = useState(false);
  const references = (["tools", "agents"] as ReferenceKind[]).flatMap((kind) => toolset[kind].map((ref, index) => ({ kind, ref, resolution: resolutionOf(toolset, kind, index) })));
  const unresolved = references.filter((item) => item.resolution && item.resolution.version === null).length;
  return (
    <li data-toolset={toolset.name} className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h3 className="flex items-center gap-2 text-base font-semibold break-words">
            {toolset.name}
            {unresolved ? <Badge tone="warning">{unresolved === 1 ? "1 reference matches nothing" : `${unresolved} references match nothing`}</Badge> : null}
          </h3>
          {toolset.description ? <p className="mt-0.5 text-sm text-zinc-700 dark:text-zinc-300">{toolset.description}</p> : null}
          <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">Changed {formatTime(toolset.updatedAt)}</p>
        </div>
        <div className="flex shrink-0 gap-2">
          <Button size="sm" onClick={onConnect} aria-label={`Connect a client to ${toolset.name}`}>
            Connect a client
          </Button>
          <Button size="sm" disabled={!canWrite} onClick={onEdit} aria-label={`Edit ${toolset.name}`}>
            Edit
          </Button>
          <Dialog open={confirm} onOpenChange={setConfirm}>
            <Button size="sm" disabled={!canWrite} onClick={() => setConfirm(true)} aria-label={`Delete ${toolset.name}`}>
              Delete
            </Button>
            <DialogContent title={`Delete “${toolset.name}”?`} description="Its URL stops answering: clients configured with it lose its tools. The tools and agents themselves stay.">
              <ErrorBanner error={remove.error} title="Cannot delete the toolset" />
              <DialogFooter>
                <Button onClick={() => setConfirm(false)}>Keep it</Button>
                <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate(toolset.id, { onSuccess: () => setConfirm(false) })}>
                  {remove.isPending ? <Spinner /> : null}
                  Delete toolset
                </Button>
              </DialogFooter>
            </DialogContent>
          </Dialog>
        </div>
      </div>
      <div className="mt-3">
        <CopyField id={`toolset-url-${toolset.id}`} label={`Endpoint URL of ${toolset.name}`} value={url} />
      </div>
      <div className="mt-3">
        {references.length ? (
          <SettingsTable caption={`What ${toolset.name} serves`} head={["Kind", "Id", "Range", "Resolves to"]}>
            {references.map(({ kind, ref, resolution }, index) => (
              <tr key={`${kind}-${index}`}>
                <td className={`${td} w-20`}>
                  <Badge>{kind === "tools" ? "tool" : "agent"}</Badge>
                </td>
                <td className={`${td} font-mono text-xs break-all`}>{ref.id}</td>
                <td className={`${td} font-mono text-xs`}>{ref.version}</td>
                <td className={`${td} text-xs`}>
                  {!resolution ? (
                    <span className="text-zinc-600 dark:text-zinc-400">not resolved</span>
                  ) : resolution.version ? (
                    <span className="font-mono">{resolution.version}</span>
                  ) : (
                    <Badge tone="warning">no active version matches</Badge>
                  )}
                </td>
              </tr>
            ))}
          </SettingsTable>
        ) : (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">References nothing: a client sees no tool.</p>
        )}
      </div>
    </li>
  );
}
