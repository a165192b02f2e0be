"use client";

import { useState } from "react";
import { SchemaForm } from "@/components/forms/schema-form";
import { JsonTree } from "@/components/catalog/json-view";
import { Badge, ErrorBanner, Spinner, Tabs, TabsContent, TabsList, TabsTrigger, cn, focusRing, type BadgeTone } from "@/components/ui";
import { isApiError } from "@/lib/client/api";
import { issuesAt } from "@/lib/client/issues";
import { useInvokeTool } from "@/lib/client/use-invoke-tool";
import type { ToolRun } from "@/lib/client/tool-types";

const STATUS_TONE: Record<string, BadgeTone> = { completed: "success", failed: "danger", cancelled: "neutral", suspended: "warning", running: "accent", pending: "accent" };

function RunResult({ run }: { run: ToolRun }) {
  return (
    <section aria-labelledby="try-it-result" className="mt-4 space-y-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <div className="flex flex-wrap items-center gap-2">
        <h3 id="try-it-result" className="text-sm font-semibold text-zinc-900 dark:text-zinc-100">Result</h3>
        <Badge tone={STATUS_TONE[run.status] ?? "neutral"}>{run.status}</Badge>
        <a href={`/v1/runs/${encodeURIComponent(run.id)}`} className={cn("ml-auto min-w-0 font-mono text-xs break-all text-indigo-700 hover:underline dark:text-indigo-300", focusRing)}>
          run {run.id}
        </a>
      </div>
      {run.status === "completed" ? (
        <Tabs defaultValue="tree">
          <TabsList aria-label="Result view">
            <TabsTrigger value="tree">Readable</TabsTrigger>
            <TabsTrigger value="raw">Raw JSON</TabsTrigger>
          </TabsList>
          <TabsContent value="tree">
            <div aria-label="Tool output" className="text-sm">
              <JsonTree value={run.output ?? null} />
            </div>
          </TabsContent>
          <TabsContent value="raw">
            <pre tabIndex={0} aria-label="Tool output as JSON" className="max-h-96 overflow-auto rounded-md bg-zinc-950 p-3 font-mono text-xs leading-5 text-zinc-100">{JSON.stringify(run.output ?? null, null, 2)}</pre>
          </TabsContent>
        </Tabs>
      ) : run.status === "failed" ? (
        <div role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
          <p className="font-medium">The call failed{run.failure?.code ? <> (<code className="font-mono">{run.failure.code}</code>)</> : null}</p>
          {run.failure?.message ? <p className="mt-0.5">{run.failure.message}</p> : null}
        </div>
      ) : run.status === "suspended" ? (
        <p className="text-sm text-zinc-700 dark:text-zinc-300">The run is waiting: the call needs a decision (an approval) or another system&apos;s answer before it goes on. It continues on its own once that arrives.</p>
      ) : (
        <p className="text-sm text-zinc-700 dark:text-zinc-300">The run has not settled yet ({run.status}); its record shows it as it goes on.</p>
      )}
    </section>
  );
}

/**
 * "Try it": the form generated from the tool's input schema; Run calls the tool version through the API (recorded as
 * a run, under the same approvals, budgets and journal as an agent's call) and shows the result readably.
 */
export function TryIt({ toolId, version, inputSchema, projectId }: { toolId: string; version: string; inputSchema: object; projectId?: string }) {
  const [value, setValue] = useState<unknown>({});
  const invoke = useInvokeTool(toolId, version);
  const issues = isApiError(invoke.error) ? issuesAt(invoke.error.issues, "/arguments") : [];
  return (
    <div>
      <SchemaForm
        key={`${toolId}@${version}`}
        schema={inputSchema}
        value={value}
        onChange={setValue}
        onSubmit={(args) => invoke.mutate({ projectId, arguments: args })}
        issues={issues}
        idPrefix="try-it"
        submitLabel="Run"
        disabled={invoke.isPending}
      >
        {invoke.isPending ? <Spinner label="Running" /> : <span className="text-xs text-zinc-500 dark:text-zinc-400">Ctrl+Enter runs</span>}
      </SchemaForm>
      {invoke.isError ? <ErrorBanner className="mt-4" error={invoke.error} title={issues.length ? "The arguments are not valid" : "The call could not be made"} /> : null}
      {invoke.data ? <RunResult run={invoke.data} /> : null}
    </div>
  );
}
