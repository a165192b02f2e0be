"use client";

/** A JSON value as a readable tree: objects as key/value lists, arrays numbered, long strings wrapped. */
export function JsonTree({ value, depth = 0 }: { value: unknown; depth?: number }) {
  if (value === null) return <span className="font-mono text-zinc-500 dark:text-zinc-400">null</span>;
  if (typeof value === "string") return <span className="font-mono break-words whitespace-pre-wrap text-emerald-800 dark:text-emerald-300">&quot;{value}&quot;</span>;
  if (typeof value === "number" || typeof value === "boolean") return <span className="font-mono text-indigo-800 dark:text-indigo-300">{String(value)}</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="font-mono text-zinc-500 dark:text-zinc-400">[] (empty list)</span>;
    return (
      <ol className="space-y-0.5 border-l border-zinc-200 pl-3 dark:border-zinc-700">
        {value.map((item, index) => (
          <li key={index} className="flex gap-2">
            <span className="font-mono text-xs text-zinc-500 dark:text-zinc-400">{index}</span>
            <div className="min-w-0">{depth > 12 ? <span className="font-mono">…</span> : <JsonTree value={item} depth={depth + 1} />}</div>
          </li>
        ))}
      </ol>
    );
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return <span className="font-mono text-zinc-500 dark:text-zinc-400">{"{}"} (empty object)</span>;
    return (
      <dl className={depth > 0 ? "space-y-0.5 border-l border-zinc-200 pl-3 dark:border-zinc-700" : "space-y-0.5"}>
        {entries.map(([key, item]) => {
          const nested = item !== null && typeof item === "object" && Object.keys(item as object).length > 0;
          return (
            <div key={key} className={nested ? "" : "flex flex-wrap gap-x-2"}>
              <dt className="font-mono text-xs font-semibold text-zinc-700 dark:text-zinc-300">{key}</dt>
              <dd className="min-w-0 text-sm">{depth > 12 ? <span className="font-mono">…</span> : <JsonTree value={item} depth={depth + 1} />}</dd>
            </div>
          );
        })}
      </dl>
    );
  }
  return <span className="font-mono">{String(value)}</span>;
}
