"use client";

/**
 * The tool picker: search the catalog, add a tool with a version range (default `^latest`), see what each range
 * resolves to now (from the dry run) and a warning when it resolves to nothing.
 */
import { useId, useState } from "react";
import type { Issue } from "@/lib/client/api";
import type { ToolResolutionItem } from "@/lib/client/agent-types";
import { fieldId } from "@/lib/client/agent-draft";
import { useAgentToolOptions } from "@/lib/client/use-agent-tool-options";
import { Problems, inputClass, issuesUnder } from "./fields";
import { useDebounced } from "./use-debounced";

type ToolRef = { id?: unknown; version?: unknown };

type Props = {
  projectId: string;
  tools: unknown[];
  onChange(tools: unknown[]): void;
  resolution: ToolResolutionItem[] | undefined;
  issues: readonly Issue[];
  warnings: readonly Issue[];
};

export function ToolPicker({ projectId, tools, onChange, resolution, issues, warnings }: Props) {
  const [query, setQuery] = useState("");
  const q = useDebounced(query, 250);
  const options = useAgentToolOptions(projectId, q);
  const searchId = useId();
  const chosen = new Set(tools.map((t) => (t as ToolRef)?.id));
  const update = (index: number, patch: ToolRef) => onChange(tools.map((t, i) => (i === index ? { ...(t as object), ...patch } : t)));

  return (
    <div className="space-y-3">
      {tools.length === 0 ? <p className="text-sm text-zinc-600 dark:text-zinc-400">No tools: the agent only chats. Search the catalog below to add one.</p> : null}
      {tools.length ? (
        <ul aria-label="Selected tools" className="space-y-2">
          {tools.map((raw, index) => {
            const ref = (raw ?? {}) as ToolRef;
            const base = `/tools/${index}`;
            const resolved = resolution?.find((r) => r.index === index);
            const id = typeof ref.id === "string" ? ref.id : "";
            return (
              <li key={index} id={fieldId(base)} className="rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
                <div className="flex flex-wrap items-end gap-3">
                  <div className="min-w-0 flex-1">
                    <div className="truncate font-mono text-sm" title={id}>
                      {id || "(no id)"}
                    </div>
                    <ResolutionLine item={resolved} />
                  </div>
                  <div className="w-44 space-y-1">
                    <label className="block text-xs font-medium" htmlFor={fieldId(`${base}/version`)}>
                      Version range<span className="sr-only"> of {id || `tool ${index + 1}`}</span>
                    </label>
                    <input id={fieldId(`${base}/version`)} className={`${inputClass} font-mono`} value={typeof ref.version === "string" ? ref.version : ""} onChange={(e) => update(index, { version: e.target.value })} aria-invalid={issuesUnder(issues, `${base}/version`).length > 0 || undefined} />
                  </div>
                  <button type="button" className="rounded-md px-2 py-1.5 text-xs font-medium text-red-700 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:text-red-400 dark:hover:bg-red-950" onClick={() => onChange(tools.filter((_, i) => i !== index))}>
                    Remove<span className="sr-only"> tool {id}</span>
                  </button>
                </div>
                <Problems issues={issuesUnder(issues, base)} warnings={issuesUnder(warnings, base).filter((w) => !resolved || resolved.version !== null || w.path !== `${base}/version`)} />
              </li>
            );
          })}
        </ul>
      ) : null}
      <div className="space-y-1">
        <label htmlFor={searchId} className="block text-sm font-medium">
          Search the tool catalog
        </label>
        <input id={searchId} type="search" className={inputClass} placeholder="id, description or tag" value={query} onChange={(e) => setQuery(e.target.value)} />
      </div>
      <div aria-live="polite" aria-busy={options.isFetching}>
        {options.error ? <p className="text-sm text-red-700 dark:text-red-400">Cannot search the catalog: {(options.error as Error).message}</p> : null}
        {options.data && options.data.data.length === 0 ? <p className="text-sm text-zinc-600 dark:text-zinc-400">No tool matches{q ? ` “${q}”` : ""}. Register tools with POST /v1/tools.</p> : null}
        {options.data?.data.length ? (
          <ul aria-label="Catalog tools" className="max-h-56 divide-y divide-zinc-100 overflow-auto rounded-md border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
            {options.data.data.map((tool) => (
              <li key={tool.toolId} className="flex items-center justify-between gap-3 px-3 py-2">
                <div className="min-w-0">
                  <div className="truncate font-mono text-sm">{tool.toolId}</div>
                  <div className="truncate text-xs text-zinc-600 dark:text-zinc-400">
                    {tool.latestVersion} · {tool.mutating ? "mutating" : "read-only"}
                    {tool.description ? ` · ${tool.description}` : ""}
                  </div>
                </div>
                <button
                  type="button"
                  disabled={chosen.has(tool.toolId)}
                  className="shrink-0 rounded-md border border-zinc-300 px-2.5 py-1 text-xs font-medium hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-indigo-600 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-900"
                  onClick={() => onChange([...tools, { id: tool.toolId, version: `^${tool.latestVersion}` }])}
                >
                  {chosen.has(tool.toolId) ? "Added" : "Add"}
                  <span className="sr-only"> tool {tool.toolId}</span>
                </button>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </div>
  );
}

function ResolutionLine({ item }: { item: ToolResolutionItem | undefined }) {
  if (!item) return <p className="text-xs text-zinc-500">Resolving…</p>;
  if (item.version) return <p className="text-xs text-zinc-600 dark:text-zinc-400">Resolves to {item.version} now</p>;
  return (
    <p role="status" className="text-xs font-medium text-amber-800 dark:text-amber-300">
      Warning: resolves to nothing now — {item.available.length ? `active versions: ${item.available.join(", ")}` : "no active version of this tool in the project"}. A run would fail.
    </p>
  );
}
