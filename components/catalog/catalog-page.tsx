"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Badge, Button, Dialog, DialogContent, DialogTrigger, EmptyState, ErrorBanner, Label, PageHeader, Select, SkeletonRows, Spinner, cn, focusRing } from "@/components/ui";
import { ToolBadges } from "@/components/catalog/tool-badges";
import { useCurrentProject } from "@/lib/client/current-project";
import { useTools } from "@/lib/client/use-tools";
import { EFFECT_KINDS, TRANSPORTS, type EffectKind, type ToolFilters, type ToolSummary } from "@/lib/client/tool-types";

/** The filters as the URL keeps them (`/tools?q=mail&mutating=false`), so a search can be shared and the top bar's search lands here. */
function filtersFrom(params: URLSearchParams | null): ToolFilters {
  const q = params?.get("q")?.trim() || undefined;
  const effect = params?.get("effect") as EffectKind | null;
  const mutating = params?.get("mutating");
  const transport = params?.get("transport") as ToolFilters["transport"] | null;
  return {
    q,
    effect: effect && (EFFECT_KINDS as readonly string[]).includes(effect) ? effect : undefined,
    mutating: mutating === "true" ? true : mutating === "false" ? false : undefined,
    transport: transport && (TRANSPORTS as readonly string[]).includes(transport) ? transport : undefined,
  };
}

const CLEARED: Partial<ToolFilters> = { q: undefined, effect: undefined, mutating: undefined, transport: undefined };

function registerCurl(projectId: string) {
  return `curl -X POST "$ORIGIN/v1/tools" \\
  -H "Authorization: Bearer $KINDGI_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"projectId": "${projectId}", "id": "acme.lookup", "version": "1.0.0",
       "description": "Looks a word up.", "mutating": false,
       "input": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]},
       "output": {"type": "object"},
       "network": {"kind": "allowlist", "hosts": ["api.example.com"]},
       "spec": {"kind": "http", "method": "GET", "urlTemplate": "https://api.example.com/words/{word}"}}'`;
}

function RegisterToolDialog({ projectId }: { projectId: string }) {
  return (
    <Dialog>
      <DialogTrigger asChild>
        <Button variant="primary">Register a tool</Button>
      </DialogTrigger>
      <DialogContent title="Register a tool" description="Tools are registered through the API with a Tool 1.3.0 manifest; the catalog shows them as soon as they are." className="w-[min(92vw,44rem)]">
        <pre className="overflow-x-auto rounded-md bg-zinc-950 p-3 font-mono text-xs leading-5 text-zinc-100">{registerCurl(projectId)}</pre>
        <p className="mt-3 text-sm text-zinc-600 dark:text-zinc-400">
          The full shape is in the API reference at <a className={cn("text-indigo-700 underline dark:text-indigo-300", focusRing)} href="/v1/openapi.json">/v1/openapi.json</a> (operation <code>registerTool</code>).
        </p>
      </DialogContent>
    </Dialog>
  );
}

function Filters({ filters, onChange }: { filters: ToolFilters; onChange(patch: Partial<ToolFilters>): void }) {
  const [text, setText] = useState(filters.q ?? "");
  const pushed = useRef(filters.q);
  // The text follows the URL when the URL changed from elsewhere (the top bar's search, back and forward).
  useEffect(() => {
    if (filters.q !== pushed.current) {
      pushed.current = filters.q;
      setText(filters.q ?? "");
    }
  }, [filters.q]);
  useEffect(() => {
    const q = text.trim() || undefined;
    if (q === filters.q) return;
    const timer = setTimeout(() => {
      pushed.current = q;
      onChange({ q });
    }, 200);
    return () => clearTimeout(timer);
  }, [text, filters, onChange]);
  const active = Boolean(filters.q || filters.effect || filters.mutating !== undefined || filters.transport);
  return (
    <form role="search" aria-label="Filter tools" className="mb-4 flex flex-wrap items-end gap-3" onSubmit={(event) => { event.preventDefault(); pushed.current = text.trim() || undefined; onChange({ q: pushed.current }); }}>
      <div className="min-w-64 flex-1">
        <Label htmlFor="catalog-search">Search tools</Label>
        <input
          id="catalog-search"
          type="search"
          value={text}
          onChange={(event) => setText(event.target.value)}
          placeholder="Id, description or tag"
          autoComplete="off"
          className="mt-1 block h-9 w-full rounded-md border border-zinc-300 bg-white px-3 text-sm text-zinc-900 shadow-sm placeholder:text-zinc-500 focus-visible:border-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-indigo-600 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:placeholder:text-zinc-400"
        />
      </div>
      <div>
        <Label htmlFor="catalog-effect">Effect</Label>
        <Select id="catalog-effect" className="mt-1 w-52" value={filters.effect ?? ""} onChange={(event) => onChange({ effect: (event.target.value || undefined) as EffectKind | undefined })}>
          <option value="">Any effect</option>
          {EFFECT_KINDS.map((kind) => <option key={kind} value={kind}>{kind}</option>)}
        </Select>
      </div>
      <div>
        <Label htmlFor="catalog-mutating">Mutating</Label>
        <Select id="catalog-mutating" className="mt-1 w-40" value={filters.mutating === undefined ? "" : String(filters.mutating)} onChange={(event) => onChange({ mutating: event.target.value === "" ? undefined : event.target.value === "true" })}>
          <option value="">Any</option>
          <option value="false">Read-only</option>
          <option value="true">Mutating</option>
        </Select>
      </div>
      <div>
        <Label htmlFor="catalog-transport">Transport</Label>
        <Select id="catalog-transport" className="mt-1 w-36" value={filters.transport ?? ""} onChange={(event) => onChange({ transport: (event.target.value || undefined) as ToolFilters["transport"] })}>
          <option value="">Any</option>
          {TRANSPORTS.map((transport) => <option key={transport} value={transport}>{transport}</option>)}
        </Select>
      </div>
      {active ? <Button variant="ghost" onClick={() => { setText(""); pushed.current = undefined; onChange(CLEARED); }}>Clear filters</Button> : null}
    </form>
  );
}

function ToolRow({ tool }: { tool: ToolSummary }) {
  return (
    <tr className="border-t border-zinc-200 align-top hover:bg-zinc-50 dark:border-zinc-800 dark:hover:bg-zinc-900/60">
      <td className="py-2.5 pr-4 pl-4">
        <div className="flex flex-wrap items-center gap-2">
          <Link href={`/tools/${encodeURIComponent(tool.toolId)}`} className={cn("font-mono text-sm font-medium whitespace-nowrap text-indigo-700 hover:underline dark:text-indigo-300", focusRing)}>
            {tool.toolId}
          </Link>
          {tool.builtIn ? <Badge tone="accent" title="Built into Kindgi: every project can use it, no registration needed">built-in</Badge> : null}
        </div>
        {tool.tags.length > 0 ? (
          <ul aria-label="Tags" className="mt-1 flex flex-wrap gap-1">
            {tool.tags.map((tag) => <li key={tag} className="text-xs text-zinc-600 dark:text-zinc-400">#{tag}</li>)}
          </ul>
        ) : null}
      </td>
      <td className="py-2.5 pr-4"><Badge tone="neutral" className="font-mono" title="Latest active version">v{tool.latestVersion}</Badge></td>
      <td className="max-w-md py-2.5 pr-4 text-sm text-zinc-700 dark:text-zinc-300"><p className="line-clamp-2">{tool.description}</p></td>
      <td className="py-2.5 pr-4">
        <ToolBadges mutating={tool.mutating} needsApprovalWhenUnattended={tool.needsApprovalWhenUnattended} pauses={tool.pauses} resultIsOutsideData={tool.resultIsOutsideData} transport={tool.transport === "auto" ? undefined : tool.transport} effects={tool.effects.map((kind) => ({ kind }))} />
      </td>
    </tr>
  );
}

/** /tools: every tool of the current project (the built-in ones too), searched and filtered on the server, a page of 50 at a time. */
export function CatalogPage() {
  const { projectId } = useCurrentProject();
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const filters = useMemo(() => filtersFrom(searchParams), [searchParams]);
  // A change applies to the newest URL, including replacements still on their way, so two quick changes both count.
  const pending = useRef<string[]>([]);
  const current = searchParams?.toString() ?? "";
  useEffect(() => {
    const index = pending.current.indexOf(current);
    pending.current = index < 0 ? [] : pending.current.slice(index + 1);
  }, [current]);
  const setFilters = useCallback(
    (patch: Partial<ToolFilters>) => {
      if (window.location.pathname !== pathname) return;
      const params = new URLSearchParams(pending.current.at(-1) ?? current);
      for (const key of ["q", "effect", "mutating", "transport"] as const) {
        if (!(key in patch)) continue;
        const value = patch[key];
        if (value === undefined || value === "") params.delete(key);
        else params.set(key, String(value));
      }
      const search = params.toString();
      pending.current.push(search);
      router.replace(search ? `${pathname}?${search}` : pathname, { scroll: false });
    },
    [router, pathname, current],
  );
  const tools = useTools(projectId, filters);
  const rows = tools.data?.pages.flatMap((page) => page.data) ?? [];
  const filtered = Boolean(filters.q || filters.effect || filters.mutating !== undefined || filters.transport);

  return (
    <div className="max-w-7xl">
      <PageHeader title="Catalog" description="Every tool this project can use, built into Kindgi or registered here: what it does, how it behaves, and what it asks before it acts." actions={<RegisterToolDialog projectId={projectId} />} />
      <Filters filters={filters} onChange={setFilters} />
      {tools.isError ? (
        <ErrorBanner error={tools.error} title="The tools could not be loaded" action={<Button size="sm" onClick={() => void tools.refetch()}>Retry</Button>} />
      ) : tools.isPending ? (
        <SkeletonRows rows={8} label="Loading tools" />
      ) : rows.length === 0 ? (
        filtered ? (
          <EmptyState title="No tool matches" action={<Button onClick={() => setFilters(CLEARED)}>Clear filters</Button>}>
            Nothing in this project, built-in tools included, matches these filters. Search looks at ids, descriptions and tags.
          </EmptyState>
        ) : (
          <EmptyState title="No tools yet" action={<RegisterToolDialog projectId={projectId} />}>
            Register a tool manifest with <code className="font-mono">POST /v1/tools</code>; it shows here at once.
          </EmptyState>
        )
      ) : (
        <>
          <div className="overflow-hidden rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-950" aria-busy={tools.isFetching && !tools.isFetchingNextPage}>
            <table className="w-full text-left">
              <caption className="sr-only">Tools{filtered ? " matching the filters" : ""}</caption>
              <thead className="bg-zinc-50 text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:bg-zinc-900 dark:text-zinc-400">
                <tr>
                  <th scope="col" className="py-2 pr-4 pl-4">Tool</th>
                  <th scope="col" className="py-2 pr-4">Version</th>
                  <th scope="col" className="py-2 pr-4">Description</th>
                  <th scope="col" className="py-2 pr-4">Behaviour</th>
                </tr>
              </thead>
              <tbody>{rows.map((tool) => <ToolRow key={tool.toolId} tool={tool} />)}</tbody>
            </table>
          </div>
          <div className="mt-3 flex items-center gap-3 text-sm text-zinc-600 dark:text-zinc-400">
            <p role="status" aria-live="polite">
              {rows.length === 1 ? "1 tool" : `${rows.length} tools`} shown{tools.hasNextPage ? ", more below" : ""}
            </p>
            {tools.hasNextPage ? (
              <Button size="sm" onClick={() => void tools.fetchNextPage()} disabled={tools.isFetchingNextPage}>
                {tools.isFetchingNextPage ? <Spinner /> : null} Show more
              </Button>
            ) : null}
            {tools.isFetching && !tools.isFetchingNextPage ? <Spinner label="Updating" /> : null}
          </div>
        </>
      )}
    </div>
  );
}
