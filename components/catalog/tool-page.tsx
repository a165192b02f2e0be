"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState, type ReactNode } from "react";
import { Badge, Button, Dialog, DialogClose, DialogContent, DialogFooter, DialogTrigger, EmptyState, ErrorBanner, Label, PageHeader, Select, Skeleton, Tabs, TabsContent, TabsList, TabsTrigger, cn, focusRing } from "@/components/ui";
import { limitsInWords, networkInWords, sandboxInWords, transportInWords } from "@/components/catalog/behaviour";
import { SchemaTable } from "@/components/catalog/schema-table";
import { ToolBadges } from "@/components/catalog/tool-badges";
import { TryIt } from "@/components/catalog/try-it";
import { isApiError } from "@/lib/client/api";
import { useCurrentProject } from "@/lib/client/current-project";
import { useIdentity } from "@/lib/client/use-identity";
import { useSetToolVersionStatus } from "@/lib/client/use-set-tool-version-status";
import { useTool } from "@/lib/client/use-tool";
import { useToolVersion } from "@/lib/client/use-tool-version";
import type { ToolDetail, ToolManifest, ToolVersion } from "@/lib/client/tool-types";

function Section({ id, title, children, className }: { id: string; title: string; children: ReactNode; className?: string }) {
  return (
    <section aria-labelledby={id} className={cn("rounded-lg border border-zinc-200 bg-white p-5 dark:border-zinc-800 dark:bg-zinc-950", className)}>
      <h2 id={id} className="mb-3 text-base font-semibold text-zinc-900 dark:text-zinc-100">{title}</h2>
      {children}
    </section>
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-zinc-600 dark:text-zinc-400">{term}</dt>
      <dd className="min-w-0 break-words text-zinc-900 dark:text-zinc-100">{children}</dd>
    </>
  );
}

function needsInWords(manifest: ToolManifest): ReactNode {
  const slots = manifest.needs ?? [];
  const spec = manifest.needsSpec ?? {};
  const parts: ReactNode[] = [];
  if (slots.length) parts.push(<span key="slots">{slots.map((need) => `${need.name}${need.optional ? " (optional)" : ""}`).join(", ")}</span>);
  for (const kind of ["env", "secrets", "config"] as const) {
    const names = Object.keys(spec[kind] ?? {});
    if (names.length) parts.push(<span key={kind}>{kind}: {names.join(", ")}</span>);
  }
  if (spec.capabilities?.length) parts.push(<span key="capabilities">capabilities: {spec.capabilities.join(", ")}</span>);
  if (spec.bindings?.length) parts.push(<span key="bindings">bindings: {spec.bindings.join(", ")}</span>);
  const connections = Object.entries(spec.connections ?? {});
  if (connections.length) parts.push(<span key="connections">connections: {connections.map(([name, need]) => `${name} (${need.app} as ${need.as}: ${need.permissions.join(", ")})`).join("; ")}</span>);
  if (parts.length === 0) return "nothing";
  return parts.map((part, index) => <span key={index} className="block">{part}</span>);
}

function HowItRuns({ manifest, artifact }: { manifest: ToolManifest; artifact: ToolVersion["artifact"] }) {
  const spec = manifest.spec;
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-6 gap-y-2 text-sm">
      <Fact term="Transport">{transportInWords(manifest)}{manifest.transport ? <span className="text-zinc-500 dark:text-zinc-400"> (declared {manifest.transport})</span> : null}</Fact>
      {spec ? (
        <Fact term="HTTP">
          <code className="font-mono text-xs">{spec.method} {spec.urlTemplate}</code>
          <span className="block text-xs text-zinc-600 dark:text-zinc-400">
            {[
              spec.requestBody ? `body: ${spec.requestBody.kind}` : null,
              spec.authorization ? `authorization: ${spec.authorization.kind}${"secretRef" in spec.authorization ? ` (secret ${spec.authorization.secretRef.name})` : ""}` : null,
              spec.headers?.length ? `headers: ${spec.headers.map((header) => header.name).join(", ")}` : null,
              spec.timeoutMs ? `timeout ${spec.timeoutMs} ms` : null,
              spec.successStatus ? `success ${spec.successStatus.min}–${spec.successStatus.max}` : null,
              spec.parseJson === false ? "result as text" : null,
            ].filter(Boolean).join(" · ")}
          </span>
        </Fact>
      ) : null}
      {manifest.mcpEndpoint ? <Fact term="MCP endpoint"><code className="font-mono text-xs">{manifest.mcpEndpoint}</code></Fact> : null}
      <Fact term="Network">{networkInWords(manifest.network)}</Fact>
      <Fact term="Limits">{limitsInWords(manifest.limits)}</Fact>
      <Fact term="Sandbox">{sandboxInWords(manifest.sandbox)}</Fact>
      <Fact term="Needs">{needsInWords(manifest)}</Fact>
      <Fact term="Effects">
        {manifest.effects?.length ? (
          <ul>
            {manifest.effects.map((effect, index) => (
              <li key={index}>
                <code className="font-mono text-xs">{effect.kind}</code>
                {effect.resource ? <> on <code className="font-mono text-xs">{effect.resource}</code></> : null}
                {effect.notes ? <span className="text-zinc-600 dark:text-zinc-400"> — {effect.notes}</span> : null}
              </li>
            ))}
          </ul>
        ) : (
          "none declared"
        )}
      </Fact>
      {manifest.codeArtifactRef?.kind === "oci" ? (
        <Fact term="Handler">
          <code className="font-mono text-xs">{manifest.codeArtifactRef.imageRef}</code> · <code className="font-mono text-xs">{manifest.codeArtifactRef.modulePath}</code>
          <span className="block text-xs text-zinc-600 dark:text-zinc-400">
            artifact version {manifest.codeArtifactRef.artifactVersion}
            {artifact ? <> · runs <code className="font-mono" title={artifact.digest}>{artifact.digest.slice(0, 19)}…</code></> : null}
          </span>
        </Fact>
      ) : manifest.codeArtifactRef ? (
        <Fact term="Handler"><code className="font-mono text-xs">{manifest.codeArtifactRef.modulePath}</code></Fact>
      ) : null}
    </dl>
  );
}

function VersionActions({ tool, version }: { tool: ToolDetail; version: ToolVersion }) {
  const setStatus = useSetToolVersionStatus(tool.toolId);
  const unregister = version.status === "active";
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={(next) => { setOpen(next); if (!next) setStatus.reset(); }}>
      <DialogTrigger asChild>
        <Button variant={unregister ? "secondary" : "primary"}>{unregister ? "Unregister" : "Reinstate"} v{version.version}</Button>
      </DialogTrigger>
      <DialogContent
        title={unregister ? `Unregister ${tool.toolId} v${version.version}?` : `Reinstate ${tool.toolId} v${version.version}?`}
        description={unregister ? "The version is hidden from resolution and lists; agents pinned to it stop resolving it. It is never deleted: you can reinstate it." : "The version resolves and lists again; the latest version is recomputed."}
      >
        <ErrorBanner error={setStatus.error} title="The change was not made" />
        <DialogFooter>
          <DialogClose asChild><Button>Cancel</Button></DialogClose>
          <Button
            variant={unregister ? "danger" : "primary"}
            disabled={setStatus.isPending}
            onClick={() => setStatus.mutate({ version: version.version, action: unregister ? "unregister" : "reinstate" }, { onSuccess: () => setOpen(false) })}
          >
            {unregister ? "Unregister" : "Reinstate"}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

function ToolPageSkeleton() {
  return (
    <div role="status" className="space-y-4">
      <span className="sr-only">Loading the tool…</span>
      <Skeleton className="h-8 w-80" />
      <Skeleton className="h-5 w-[36rem]" />
      <div className="grid grid-cols-2 gap-6">
        <Skeleton className="h-72" />
        <Skeleton className="h-72" />
      </div>
    </div>
  );
}

/** /tools/{toolId}: a tool's description, versions, schemas, behaviour, how it runs, and "try it". */
export function ToolPage({ toolId }: { toolId: string }) {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const { projectId } = useCurrentProject();
  const identity = useIdentity();
  const tool = useTool(toolId);
  const requested = searchParams?.get("version");
  const selected = tool.data ? (requested && tool.data.versions.some((item) => item.version === requested) ? requested : (tool.data.latestVersion ?? tool.data.versions[0]?.version ?? null)) : null;
  const version = useToolVersion(toolId, selected);
  const isAdmin = identity.data?.user.role === "admin";

  if (tool.isError) {
    if (isApiError(tool.error) && tool.error.status === 404) {
      return (
        <EmptyState title={`No tool ${toolId}`} action={<Button asChild variant="primary"><Link href="/tools">Back to the catalog</Link></Button>}>
          No tool of that id is registered in a project you can see. Check the id, or register it with <code className="font-mono">POST /v1/tools</code>.
        </EmptyState>
      );
    }
    return <ErrorBanner error={tool.error} title="The tool could not be loaded" action={<Button size="sm" onClick={() => void tool.refetch()}>Retry</Button>} />;
  }
  if (tool.isPending || (selected && version.isPending)) return <ToolPageSkeleton />;
  const detail = tool.data;
  const current = version.data;
  if (!current || !selected) {
    return version.isError ? <ErrorBanner error={version.error} title="The version could not be loaded" /> : <EmptyState title="No version">This tool has no version to show.</EmptyState>;
  }
  const manifest = current.manifest;

  const chooseVersion = (next: string) => {
    const params = new URLSearchParams(searchParams?.toString() ?? "");
    if (next === detail.latestVersion) params.delete("version");
    else params.set("version", next);
    const search = params.toString();
    router.replace(search ? `${pathname}?${search}` : pathname, { scroll: false });
  };

  return (
    <div className="max-w-7xl">
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/tools" className={cn("text-zinc-700 underline underline-offset-2 hover:text-zinc-900 dark:text-zinc-300 dark:hover:text-zinc-100", focusRing)}>Catalog</Link>
        <span aria-hidden="true" className="px-1.5 text-zinc-400">/</span>
        <span aria-current="page" className="font-mono text-zinc-900 dark:text-zinc-100">{toolId}</span>
      </nav>
      <PageHeader
        title={<span className="font-mono">{toolId}</span>}
        description={manifest.description}
        actions={
          <>
            <div className="flex items-center gap-2">
              <Label htmlFor="tool-version">Version</Label>
              <Select id="tool-version" className="w-44" value={selected} onChange={(event) => chooseVersion(event.target.value)}>
                {detail.versions.map((item) => (
                  <option key={item.version} value={item.version}>
                    {item.version}{item.isLatest ? " (latest)" : ""}{item.status === "unregistered" ? " (unregistered)" : ""}
                  </option>
                ))}
              </Select>
            </div>
            {isAdmin && !detail.builtIn ? <VersionActions tool={detail} version={current} /> : null}
            <Button asChild variant="primary"><a href="#try-it-heading">Try it</a></Button>
          </>
        }
      >
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <Badge tone="neutral" className="font-mono">v{current.version}</Badge>
          {current.isLatest ? <Badge tone="success">latest</Badge> : null}
          {current.status === "unregistered" ? <Badge tone="danger">unregistered</Badge> : null}
          {detail.builtIn ? <Badge tone="accent">built into Kindgi</Badge> : null}
          <ToolBadges mutating={manifest.mutating ?? true} needsApprovalWhenUnattended={manifest.needsApprovalWhenUnattended} pauses={manifest.pauses} resultIsOutsideData={manifest.resultIsOutsideData} transport={transportInWords(manifest)} effects={manifest.effects} />
        </div>
      </PageHeader>

      <div className="grid grid-cols-1 gap-6 xl:grid-cols-[minmax(0,7fr)_minmax(0,5fr)]">
        <div className="space-y-6">
          <Section id="schemas-heading" title="Schemas">
            <Tabs defaultValue="input">
              <TabsList aria-label="Schemas">
                <TabsTrigger value="input">Input</TabsTrigger>
                <TabsTrigger value="output">Output</TabsTrigger>
                <TabsTrigger value="manifest">Manifest</TabsTrigger>
              </TabsList>
              <TabsContent value="input"><SchemaTable schema={manifest.input} label="Input" idPrefix="input-schema" /></TabsContent>
              <TabsContent value="output"><SchemaTable schema={manifest.output} label="Output" idPrefix="output-schema" /></TabsContent>
              <TabsContent value="manifest">
                <pre tabIndex={0} aria-label="Manifest as JSON" className="max-h-[32rem] overflow-auto rounded-md bg-zinc-950 p-3 font-mono text-xs leading-5 text-zinc-100">{JSON.stringify(manifest, null, 2)}</pre>
              </TabsContent>
            </Tabs>
          </Section>
          <Section id="runs-heading" title="How it runs">
            <HowItRuns manifest={manifest} artifact={current.artifact} />
          </Section>
          <Section id="versions-heading" title="Versions">
            <table className="w-full text-left text-sm">
              <caption className="sr-only">Versions, newest first</caption>
              <thead className="text-xs font-semibold text-zinc-600 dark:text-zinc-400">
                <tr><th scope="col" className="py-1.5 pr-4">Version</th><th scope="col" className="py-1.5 pr-4">State</th><th scope="col" className="py-1.5 pr-4">Registered</th></tr>
              </thead>
              <tbody>
                {detail.versions.map((item) => (
                  <tr key={item.version} className="border-t border-zinc-200 dark:border-zinc-800">
                    <td className="py-1.5 pr-4">
                      <button type="button" onClick={() => chooseVersion(item.version)} aria-current={item.version === selected ? "true" : undefined} className={cn("font-mono text-indigo-700 hover:underline aria-[current=true]:font-semibold dark:text-indigo-300", focusRing)}>
                        {item.version}
                      </button>
                    </td>
                    <td className="py-1.5 pr-4">
                      {item.isLatest ? <Badge tone="success">latest</Badge> : null} {item.status === "unregistered" ? <Badge tone="danger">unregistered</Badge> : item.isLatest ? null : <Badge>active</Badge>}
                    </td>
                    <td className="py-1.5 pr-4 text-zinc-600 dark:text-zinc-400"><time dateTime={item.registeredAt}>{new Date(item.registeredAt).toLocaleString()}</time></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Section>
        </div>
        <Section id="try-it-heading" title="Try it" className="self-start">
          <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
            Runs v{current.version} through the API as a run of its own, under the same approvals, budgets and journal as an agent&apos;s call.
          </p>
          {current.status === "unregistered" ? (
            <p className="text-sm text-zinc-700 dark:text-zinc-300">This version is unregistered: reinstate it to call it.</p>
          ) : (
            <TryIt key={`${toolId}@${current.version}`} toolId={toolId} version={current.version} inputSchema={manifest.input} projectId={detail.projectId ?? projectId} />
          )}
        </Section>
      </div>
    </div>
  );
}
