"use client";

/**
 * "Connect a client": the endpoint to serve (the whole project or one of its toolsets), its URL, and each MCP
 * client's configuration for it with a Copy button. The key is never shown: a placeholder stands for it.
 */
import Link from "next/link";
import { useEffect, useId, useState } from "react";
import { Button, Select, Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui";
import { API_KEY_PLACEHOLDER, mcpClientConfigs } from "@/lib/client/mcp-client-config";
import { CopyField } from "./trigger-bits";

/** An endpoint a client can be pointed at: the project's or a toolset's. */
export type McpTarget = { value: string; label: string; serverName: string; url: string };

export function McpClientConfigs({ targets, value, onValueChange }: { targets: McpTarget[]; value: string; onValueChange(value: string): void }) {
  const target = targets.find((candidate) => candidate.value === value) ?? targets[0];
  const selectId = useId();
  if (!target) return null;
  const configs = mcpClientConfigs({ name: target.serverName, url: target.url });
  return (
    <div className="space-y-4">
      <div className="grid gap-4 md:grid-cols-[20rem_minmax(0,1fr)]">
        <div>
          <label htmlFor={selectId} className="block text-sm font-medium text-zinc-800 dark:text-zinc-200">
            Serve
          </label>
          <Select id={selectId} className="mt-1" value={target.value} onChange={(e) => onValueChange(e.target.value)}>
            {targets.map((candidate) => (
              <option key={candidate.value} value={candidate.value}>
                {candidate.label}
              </option>
            ))}
          </Select>
        </div>
        <CopyField id={`${selectId}-url`} label="Endpoint URL" value={target.url} />
      </div>
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        Clients send an API key as <code className="font-mono text-xs">Authorization: Bearer &lt;key&gt;</code>. Put yours where the configuration says{" "}
        <code className="font-mono text-xs">{API_KEY_PLACEHOLDER}</code> —{" "}
        <Link href="/settings/api-keys" className="font-medium text-indigo-700 hover:underline dark:text-indigo-300">
          create one in API keys
        </Link>{" "}
        (it is shown once; a key narrowed to this project reaches nothing else).
      </p>
      <Tabs defaultValue={configs[0].id}>
        <TabsList aria-label="MCP client">
          {configs.map((config) => (
            <TabsTrigger key={config.id} value={config.id}>
              {config.label}
            </TabsTrigger>
          ))}
        </TabsList>
        {configs.map((config) => (
          <TabsContent key={config.id} value={config.id} tabIndex={-1}>
            <CodeBlock label={`${config.label} configuration`} where={config.where} text={config.text} />
          </TabsContent>
        ))}
      </Tabs>
    </div>
  );
}

/** A block of text to paste, with a Copy button that says when it copied. */
function CodeBlock({ label, where, text }: { label: string; where: string; text: string }) {
  const [copied, setCopied] = useState(false);
  const preId = useId();
  useEffect(() => setCopied(false), [text]);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 4000);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <div>
      <div className="mb-2 flex items-center justify-between gap-3">
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{where}</p>
        <Button
          size="sm"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(text);
              setCopied(true);
            } catch {
              const pre = document.getElementById(preId);
              if (pre) window.getSelection()?.selectAllChildren(pre);
            }
          }}
        >
          {copied ? "Copied" : "Copy"}
          <span className="sr-only"> {label}</span>
        </Button>
      </div>
      <pre
        id={preId}
        tabIndex={0}
        aria-label={label}
        className="overflow-x-auto rounded-md border whitespace-pre-wrap [overflow-wrap:anywhere] border-zinc-200 bg-zinc-50 p-3 font-mono text-xs leading-relaxed text-zinc-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
      >
        {text}
      </pre>
      <p className="sr-only" aria-live="polite">
        {copied ? `The ${label} is on your clipboard.` : ""}
      </p>
    </div>
  );
}
