"use client";

/** `/settings/secrets`: names and versions only; set (a new version) and delete. Values are never shown. */
import { useState } from "react";
import { Button, Dialog, DialogContent, DialogFooter, EmptyState, ErrorBanner, Field, Input, PageHeader, SkeletonRows, Spinner, Textarea } from "@/components/ui";
import { formatTime } from "@/components/runs/run-bits";
import { isApiError } from "@/lib/client/api";
import { useDeleteSecret, usePutSecret, useSecrets } from "@/lib/client/use-settings";
import { SettingsTable, td } from "./settings-nav";

export function SecretsPage() {
  const secrets = useSecrets();
  const [editing, setEditing] = useState<string | null>(null);
  const rows = secrets.data ?? [];
  return (
    <div>
      <PageHeader
        title="Secrets"
        description="Encrypted values that tools, providers and MCP endpoints name (API keys, tokens). Only names and versions are shown; setting a name again stores a new version."
        actions={
          <Button variant="primary" onClick={() => setEditing("")}>
            Set a secret
          </Button>
        }
      />
      <SecretDialog name={editing} onClose={() => setEditing(null)} />
      <ErrorBanner error={secrets.error} title="Cannot list the secrets" />
      {secrets.isPending ? <SkeletonRows rows={3} label="Loading the secrets" /> : null}
      {secrets.data && rows.length === 0 ? (
        <EmptyState title="No secrets yet" action={<Button variant="primary" onClick={() => setEditing("")}>Set a secret</Button>}>
          Store a value once, then name it from a tool&apos;s HTTP spec or a provider (<code className="font-mono">apiKeySecret</code>).
        </EmptyState>
      ) : null}
      {rows.length ? (
        <SettingsTable caption="Secrets" head={["Name", "Version", "Set", ""]}>
          {rows.map((secret) => (
            <tr key={secret.name}>
              <td className={`${td} font-mono`}>{secret.name}</td>
              <td className={`${td} font-mono`}>v{secret.version}</td>
              <td className={td}>{formatTime(secret.createdAt)}</td>
              <td className={`${td} text-right`}>
                <span className="inline-flex gap-2">
                  <Button size="sm" onClick={() => setEditing(secret.name)} aria-label={`Set a new value for ${secret.name}`}>
                    New value
                  </Button>
                  <DeleteSecret name={secret.name} />
                </span>
              </td>
            </tr>
          ))}
        </SettingsTable>
      ) : null}
    </div>
  );
}

function DeleteSecret({ name }: { name: string }) {
  const remove = useDeleteSecret();
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <Button size="sm" onClick={() => setOpen(true)} aria-label={`Delete ${name}`}>
        Delete
      </Button>
      <DialogContent title={`Delete “${name}”?`} description="Every version is deleted. Tools and providers that name it fail until it is set again.">
        <ErrorBanner error={remove.error} title="Cannot delete the secret" />
        <DialogFooter>
          <Button onClick={() => setOpen(false)}>Keep it</Button>
          <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate(name, { onSuccess: () => setOpen(false) })}>
            Delete secret
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

function SecretDialog({ name, onClose }: { name: string | null; onClose(): void }) {
  const put = usePutSecret();
  const [draftName, setDraftName] = useState("");
  const [value, setValue] = useState("");
  const open = name !== null;
  const fixed = Boolean(name);
  const close = () => {
    put.reset();
    setDraftName("");
    setValue("");
    onClose();
  };
  const issues = isApiError(put.error) ? put.error.issues : [];
  return (
    <Dialog open={open} onOpenChange={(next) => (!next ? close() : undefined)}>
      <DialogContent title={fixed ? `New value for “${name}”` : "Set a secret"} description="The value is encrypted at rest and never shown again.">
        <form
          className="space-y-3"
          onSubmit={(e) => {
            e.preventDefault();
            put.mutate({ name: fixed ? name! : draftName.trim(), value }, { onSuccess: close });
          }}
        >
          {!fixed ? (
            <Field id="secret-name" label="Name" hint="Letters, digits, _ . and -, at most 128." issues={issues} path="/name">
              {(props) => <Input {...props} className="font-mono" value={draftName} onChange={(e) => setDraftName(e.target.value)} required pattern="[A-Za-z0-9_.\-]{1,128}" autoFocus />}
            </Field>
          ) : null}
          <Field id="secret-value" label="Value" issues={issues} path="/value">
            {(props) => <Textarea {...props} rows={3} className="font-mono" value={value} onChange={(e) => setValue(e.target.value)} required autoComplete="off" spellCheck={false} />}
          </Field>
          <ErrorBanner error={put.error} title="Cannot store the secret" />
          <DialogFooter>
            <Button onClick={close}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={put.isPending || !value || (!fixed && !draftName.trim())}>
              {put.isPending ? <Spinner /> : null}
              Save secret
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
