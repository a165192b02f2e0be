"use client";

/** `/settings/mcp`: the project's MCP endpoints with their status and tools; add one, refresh it, unregister it. */
import Link from "next/link";
import { useState } from "react";
import { Badge, Button, Dialog, DialogContent, DialogFooter, EmptyState, ErrorBanner, Field, Input, PageHeader, SkeletonRows, Spinner } from "@/components/ui";
import { formatTime } from "@/components/runs/run-bits";
import { isApiError } from "@/lib/client/api";
import { useCurrentProject } from "@/lib/client/current-project";
import { useMcpEndpoints, useRefreshMcp, useRegisterMcp, useUnregisterMcp, type McpEndpoint } from "@/lib/client/use-settings";

export function McpPage() {
  const { projectId } = useCurrentProject();
  const endpoints = useMcpEndpoints(projectId);
  const [open, setOpen] = useState(false);
  const rows = endpoints.data ?? [];
  return (
    <div>
      <PageHeader
        title="MCP endpoints"
        description="MCP servers whose tools this project uses: each listed tool is registered in the catalog as <name>.<tool>. Refresh to pick up tools the server added or changed."
        actions={
          <Button variant="primary" onClick={() => setOpen(true)}>
            Add an MCP endpoint
          </Button>
        }
      />
      <McpDialog open={open} onOpenChange={setOpen} projectId={projectId} />
      <ErrorBanner error={endpoints.error} title="Cannot list the MCP endpoints" />
      {endpoints.isPending ? <SkeletonRows rows={3} label="Loading the MCP endpoints" /> : null}
      {endpoints.data && rows.length === 0 ? (
        <EmptyState title="No MCP endpoints yet" action={<Button variant="primary" onClick={() => setOpen(true)}>Add an MCP endpoint</Button>}>
          Connect a server over Streamable HTTP (<code className="font-mono">mcp+http://host/mcp</code>), SSE, or stdio when the server allows it (<code className="font-mono">mcp+stdio://npx -y @modelcontextprotocol/server-memory</code>).
        </EmptyState>
      ) : null}
      <ul className="space-y-3">
        {rows.map((endpoint) => (
          <EndpointCard key={endpoint.id} endpoint={endpoint} />
        ))}
      </ul>
    </div>
  );
}

function EndpointCard({ endpoint }: { endpoint: McpEndpoint }) {
  const refresh = useRefreshMcp();
  const unregister = useUnregisterMcp();
  const tone = endpoint.status === "connected" ? "success" : endpoint.status === "error" ? "danger" : "neutral";
  return (
    <li className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800" data-endpoint={endpoint.name}>
      <div className="flex flex-wrap items-start gap-3">
        <div className="min-w-0 flex-1">
          <h2 className="flex items-center gap-2 text-base font-semibold">
            {endpoint.name} <Badge tone={tone}>{endpoint.status}</Badge> <Badge>{endpoint.transport}</Badge>
          </h2>
          <p className="mt-0.5 font-mono text-xs break-all text-zinc-600 dark:text-zinc-400">{endpoint.endpoint}</p>
          <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
            {endpoint.serverName ? `${endpoint.serverName} ${endpoint.serverVersion ?? ""} · ` : ""}
            {endpoint.toolCount} tool{endpoint.toolCount === 1 ? "" : "s"} · last refresh {formatTime(endpoint.lastRefreshAt)}
          </p>
          {endpoint.lastError ? <p className="mt-1 text-sm text-red-700 dark:text-red-300">Last error: {endpoint.lastError}</p> : null}
        </div>
        {endpoint.status !== "unregistered" ? (
          <div className="flex gap-2">
            <Button size="sm" onClick={() => refresh.mutate(endpoint.id)} disabled={refresh.isPending} aria-label={`Refresh ${endpoint.name}`}>
              {refresh.isPending ? <Spinner /> : null}
              Refresh
            </Button>
            <Button size="sm" onClick={() => unregister.mutate(endpoint.id)} disabled={unregister.isPending} aria-label={`Unregister ${endpoint.name}`}>
              Unregister
            </Button>
          </div>
        ) : null}
      </div>
      <ErrorBanner className="mt-2" error={refresh.error ?? unregister.error} title="The endpoint could not be changed" />
      {endpoint.tools.length ? (
        <details className="mt-2">
          <summary className="cursor-pointer text-sm text-indigo-700 hover:underline dark:text-indigo-300">Its tools ({endpoint.tools.length})</summary>
          <ul className="mt-1 grid grid-cols-3 gap-x-4 gap-y-0.5 text-xs">
            {endpoint.tools.map((tool) => (
              <li key={tool.toolId}>
                <Link className="font-mono text-indigo-700 hover:underline dark:text-indigo-300" href={`/tools/${encodeURIComponent(tool.toolId)}`}>
                  {tool.toolId}
                </Link>{" "}
                <span className="text-zinc-600 dark:text-zinc-400">{tool.version}</span>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </li>
  );
}

function McpDialog({ open, onOpenChange, projectId }: { open: boolean; onOpenChange(open: boolean): void; projectId: string }) {
  const register = useRegisterMcp();
  const [name, setName] = useState("");
  const [endpoint, setEndpoint] = useState("");
  const issues = isApiError(register.error) ? register.error.issues : [];
  const close = (next: boolean) => {
    onOpenChange(next);
    if (!next) {
      register.reset();
      setName("");
      setEndpoint("");
    }
  };
  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent title="Add an MCP endpoint" description="The server is connected now and its tools are registered in this project's catalog.">
        <form
          className="space-y-3"
          onSubmit={(e) => {
            e.preventDefault();
            register.mutate({ name: name.trim(), endpoint: endpoint.trim(), projectId }, { onSuccess: () => close(false) });
          }}
        >
          <Field id="mcp-name" label="Name" hint="The prefix of its tools' ids: letters, digits, _ and -." issues={issues} path="/name">
            {(props) => <Input {...props} className="font-mono" value={name} onChange={(e) => setName(e.target.value)} required />}
          </Field>
          <Field id="mcp-endpoint" label="Endpoint" hint="mcp+http://…, mcp+sse://… or mcp+stdio://<command line>" issues={issues} path="/endpoint">
            {(props) => <Input {...props} className="font-mono" value={endpoint} onChange={(e) => setEndpoint(e.target.value)} required />}
          </Field>
          <ErrorBanner error={register.error} title="Cannot add the endpoint" />
          <DialogFooter>
            <Button onClick={() => close(false)}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={register.isPending || !name.trim() || !endpoint.trim()}>
              {register.isPending ? <Spinner /> : null}
              {register.isPending ? "Connecting…" : "Connect"}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
