"use client";

/** `/settings/api-keys`: mint a key (shown once, with a copy button), list keys, revoke one. */
import { useState } from "react";
import { Badge, Button, Dialog, DialogContent, DialogFooter, EmptyState, ErrorBanner, Field, Input, PageHeader, Select, SkeletonRows, Spinner } from "@/components/ui";
import { formatTime } from "@/components/runs/run-bits";
import { isApiError } from "@/lib/client/api";
import { useCurrentProject } from "@/lib/client/current-project";
import { useMintToken, useRevokeToken, useTokens, type Token } from "@/lib/client/use-settings";
import { SettingsTable, td } from "./settings-nav";

export function ApiKeysPage() {
  const tokens = useTokens();
  const [open, setOpen] = useState(false);
  const rows = tokens.data ?? [];
  return (
    <div>
      <PageHeader
        title="API keys"
        description="Keys act for the person who minted them, with that person's role; a key narrowed to a project sees only that project. A revoked key is refused on its next request."
        actions={
          <Button variant="primary" onClick={() => setOpen(true)}>
            New API key
          </Button>
        }
      />
      <MintDialog open={open} onOpenChange={setOpen} />
      <ErrorBanner error={tokens.error} title="Cannot list the API keys" />
      {tokens.isPending ? <SkeletonRows rows={4} label="Loading the API keys" /> : null}
      {tokens.data && rows.length === 0 ? (
        <EmptyState title="No API keys yet" action={<Button variant="primary" onClick={() => setOpen(true)}>New API key</Button>}>
          Mint a key to call <code className="font-mono">/v1</code> from a script: <code className="font-mono">curl -H &quot;Authorization: Bearer kgi_…&quot; /v1/tools</code>.
        </EmptyState>
      ) : null}
      {rows.length ? (
        <SettingsTable caption="API keys" head={["Name", "Key", "Acts for", "Project", "Created · last used", "Status", ""]}>
          {rows.map((token) => (
            <TokenRow key={token.id} token={token} />
          ))}
        </SettingsTable>
      ) : null}
    </div>
  );
}

function TokenRow({ token }: { token: Token }) {
  const revoke = useRevokeToken();
  const { projects } = useCurrentProject();
  const [confirm, setConfirm] = useState(false);
  return (
    <tr data-token-id={token.id}>
      <td className={`${td} font-medium break-words`}>{token.name}</td>
      <td className={`${td} font-mono text-xs`}>{token.prefix}…</td>
      <td className={td}>
        {token.actsFor.name} <span className="text-xs text-zinc-600 dark:text-zinc-400">({token.actsFor.kind})</span>
      </td>
      <td className={td}>{token.projectId ? (projects.find((p) => p.id === token.projectId)?.name ?? token.projectId.slice(0, 8)) : "every project"}</td>
      <td className={`${td} text-xs`}>
        {formatTime(token.createdAt)}
        <div className="text-zinc-600 dark:text-zinc-400">{token.lastUsedAt ? `used ${formatTime(token.lastUsedAt)}` : "never used"}</div>
      </td>
      <td className={td}>{token.revokedAt ? <Badge tone="danger">revoked</Badge> : <Badge tone="success">active</Badge>}</td>
      <td className={`${td} text-right`}>
        {!token.revokedAt ? (
          <Dialog open={confirm} onOpenChange={setConfirm}>
            <Button size="sm" variant="secondary" onClick={() => setConfirm(true)} aria-label={`Revoke ${token.name}`}>
              Revoke
            </Button>
            <DialogContent title={`Revoke “${token.name}”?`} description="Requests with this key are refused from the next one on. This cannot be undone.">
              <ErrorBanner error={revoke.error} title="Cannot revoke the key" />
              <DialogFooter>
                <Button onClick={() => setConfirm(false)}>Keep it</Button>
                <Button variant="danger" disabled={revoke.isPending} onClick={() => revoke.mutate(token.id, { onSuccess: () => setConfirm(false) })}>
                  {revoke.isPending ? <Spinner /> : null}
                  Revoke key
                </Button>
              </DialogFooter>
            </DialogContent>
          </Dialog>
        ) : null}
      </td>
    </tr>
  );
}

function MintDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const mint = useMintToken();
  const { projects } = useCurrentProject();
  const [name, setName] = useState("");
  const [projectId, setProjectId] = useState("");
  const [copied, setCopied] = useState(false);
  const close = (next: boolean) => {
    onOpenChange(next);
    if (!next) {
      mint.reset();
      setName("");
      setProjectId("");
      setCopied(false);
    }
  };
  const key = mint.data?.key;
  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent title={key ? "Your new API key" : "New API key"} description={key ? "Copy it now: it is shown only once and cannot be read again." : "The key acts for you, with your role."}>
        {key ? (
          <div>
            <label htmlFor="new-key" className="sr-only">
              The new API key
            </label>
            <div className="flex gap-2">
              <Input id="new-key" readOnly value={key} className="font-mono" onFocus={(e) => e.currentTarget.select()} />
              <Button
                onClick={async () => {
                  try {
                    await navigator.clipboard.writeText(key);
                    setCopied(true);
                  } catch {
                    (document.getElementById("new-key") as HTMLInputElement | null)?.select();
                  }
                }}
              >
                {copied ? "Copied" : "Copy"}
              </Button>
            </div>
            <p className="mt-2 text-xs text-zinc-600 dark:text-zinc-400" aria-live="polite">
              {copied ? "The key is on your clipboard." : "Use it as: Authorization: Bearer <key>"}
            </p>
            <DialogFooter>
              <Button variant="primary" onClick={() => close(false)}>
                Done
              </Button>
            </DialogFooter>
          </div>
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              mint.mutate({ name: name.trim(), projectId: projectId || undefined });
            }}
            className="space-y-3"
          >
            <Field id="key-name" label="Name" hint="What the key is for, e.g. “CI deploys”." issues={isApiError(mint.error) ? mint.error.issues : []} path="/name">
              {(props) => <Input {...props} value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} autoFocus />}
            </Field>
            <Field id="key-project" label="Project" hint="Narrow the key to one project, or let it reach every project.">
              {(props) => (
                <Select {...props} value={projectId} onChange={(e) => setProjectId(e.target.value)}>
                  <option value="">Every project</option>
                  {projects.map((project) => (
                    <option key={project.id} value={project.id}>
                      {project.name}
                    </option>
                  ))}
                </Select>
              )}
            </Field>
            <ErrorBanner error={mint.error} title="Cannot mint the key" />
            <DialogFooter>
              <Button onClick={() => close(false)}>Cancel</Button>
              <Button type="submit" variant="primary" disabled={!name.trim() || mint.isPending}>
                {mint.isPending ? <Spinner /> : null}
                Create key
              </Button>
            </DialogFooter>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}
