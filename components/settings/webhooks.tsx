"use client";

/**
 * `/settings/webhooks`: the project's webhooks; a new one (a Liquid template over the delivery's payload, parameters
 * as JSON pointers into it) answers its receiver URL and signing secret once, with copy buttons and how to sign a
 * delivery; pause, resume, unregister; each webhook's deliveries with the run each started.
 */
import { useState } from "react";
import { Button, Dialog, DialogContent, DialogFooter, EmptyState, ErrorBanner, Field, Input, PageHeader, SkeletonRows, Spinner, Textarea } from "@/components/ui";
import { FieldError } from "@/components/ui/field-error";
import { formatTime } from "@/components/runs/run-bits";
import { isApiError } from "@/lib/client/api";
import { useCurrentProject } from "@/lib/client/current-project";
import { useAgentVersionForm } from "@/lib/client/use-playground";
import { useIdentity } from "@/lib/client/use-identity";
import { useCreateWebhook, useWebhookAction, useWebhookDeliveries, useWebhooks, type Webhook } from "@/lib/client/use-webhooks";
import { SettingsTable, td } from "./settings-nav";
import { AgentVersionPicker, CopyField, OutcomeBadge, roleNote, RunLink, TriggerStatusBadge, UnattendedToolsPicker, useChosenDefinition, useUserName } from "./trigger-bits";

export function WebhooksPage() {
  const { projectId } = useCurrentProject();
  const identity = useIdentity();
  const webhooks = useWebhooks(projectId);
  const [open, setOpen] = useState(false);
  const role = identity.data?.user.role;
  const canWrite = Boolean(role) && role !== "viewer";
  const note = roleNote(role, "webhooks");
  const rows = webhooks.data?.data ?? [];
  const newButton = (
    <Button variant="primary" disabled={!canWrite} onClick={() => setOpen(true)}>
      New webhook
    </Button>
  );
  return (
    <div>
      <PageHeader
        title="Webhooks"
        description="A webhook is a receiver URL: each delivery signed with its secret (Standard Webhooks) starts a run of an agent, unattended, with the delivery's JSON as the template's payload. A delivery with a bad signature, an old timestamp or a repeated webhook-id starts nothing."
        actions={newButton}
      />
      {note ? <p className="mb-3 rounded-md border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800">{note}</p> : null}
      {open ? <CreateWebhookDialog projectId={projectId} isAdmin={role === "admin"} onClose={() => setOpen(false)} /> : null}
      <ErrorBanner error={webhooks.error} title="Cannot list the webhooks" />
      {webhooks.isPending ? <SkeletonRows rows={3} label="Loading the webhooks" /> : null}
      {webhooks.data && rows.length === 0 ? (
        <EmptyState title="No webhooks yet" action={canWrite ? newButton : undefined}>
          Create one and point another system at its receiver URL — or use <code className="font-mono">POST /v1/webhooks</code>.
        </EmptyState>
      ) : null}
      {rows.length ? (
        <ul className="space-y-3">
          {rows.map((webhook) => (
            <WebhookCard key={webhook.id} webhook={webhook} canWrite={canWrite} />
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function WebhookCard({ webhook, canWrite }: { webhook: Webhook; canWrite: boolean }) {
  const action = useWebhookAction();
  const userName = useUserName();
  const [confirm, setConfirm] = useState(false);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const pointers = Object.entries(webhook.input.parameters);
  return (
    <li data-webhook={webhook.name} className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 className="flex items-center gap-2 text-base font-semibold break-words">
            {webhook.name} <TriggerStatusBadge status={webhook.status} />
          </h2>
          <p className="mt-1 font-mono text-xs break-all text-zinc-700 dark:text-zinc-300">POST {webhook.receiverUrl}</p>
        </div>
        <div className="flex shrink-0 gap-2">
          {webhook.status === "active" ? (
            <Button size="sm" disabled={!canWrite || action.isPending} onClick={() => action.mutate({ id: webhook.id, action: "pause" })} aria-label={`Pause ${webhook.name}`}>
              Pause
            </Button>
          ) : (
            <Button size="sm" variant="primary" disabled={!canWrite || action.isPending} onClick={() => action.mutate({ id: webhook.id, action: "resume" })} aria-label={`Resume ${webhook.name}`}>
              Resume
            </Button>
          )}
          <Dialog open={confirm} onOpenChange={setConfirm}>
            <Button size="sm" disabled={!canWrite} onClick={() => setConfirm(true)} aria-label={`Unregister ${webhook.name}`}>
              Unregister
            </Button>
            <DialogContent title={`Unregister “${webhook.name}”?`} description="Its receiver answers 404 from now on; this cannot be undone. Its deliveries and their runs stay readable.">
              <ErrorBanner error={action.error} title="Cannot unregister the webhook" />
              <DialogFooter>
                <Button onClick={() => setConfirm(false)}>Keep it</Button>
                <Button variant="danger" disabled={action.isPending} onClick={() => action.mutate({ id: webhook.id, action: "unregister" }, { onSuccess: () => setConfirm(false) })}>
                  Unregister webhook
                </Button>
              </DialogFooter>
            </DialogContent>
          </Dialog>
        </div>
      </div>
      <dl className="mt-3 grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4">
        <div>
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">Agent</dt>
          <dd className="font-mono text-xs break-all">
            {webhook.agent.id} @ {webhook.agent.version ?? "latest"}
          </dd>
        </div>
        <div>
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">Message template</dt>
          <dd className="font-mono text-xs break-all">{webhook.input.userMessage}</dd>
        </div>
        <div>
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">Parameters</dt>
          <dd className="font-mono text-xs break-all">{pointers.length ? pointers.map(([name, pointer]) => `${name} ← ${pointer}`).join(", ") : "none"}</dd>
        </div>
        <div>
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">Created</dt>
          <dd className="text-xs">
            {userName(webhook.createdBy)}, {formatTime(webhook.createdAt)}
          </dd>
        </div>
        <div className="col-span-2 sm:col-span-4">
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">Allowed unattended</dt>
          <dd className="font-mono text-xs break-all">{webhook.toolsAllowedUnattended.length ? webhook.toolsAllowedUnattended.join(", ") : "no tool"}</dd>
        </div>
      </dl>
      {action.error && !confirm ? <ErrorBanner className="mt-2" error={action.error} title="Cannot change the webhook" /> : null}
      <details className="mt-3" onToggle={(e) => setShowDeliveries(e.currentTarget.open)}>
        <summary className="cursor-pointer text-sm font-medium text-indigo-700 dark:text-indigo-300">Deliveries</summary>
        {showDeliveries ? <DeliveryList webhook={webhook} /> : null}
      </details>
    </li>
  );
}

function DeliveryList({ webhook }: { webhook: Webhook }) {
  const deliveries = useWebhookDeliveries(webhook.id, { poll: webhook.status === "active" });
  const rows = deliveries.data?.data ?? [];
  return (
    <div className="mt-2">
      <ErrorBanner error={deliveries.error} title="Cannot list the deliveries" />
      {deliveries.isPending ? <SkeletonRows rows={2} label="Loading the deliveries" /> : null}
      {deliveries.data && rows.length === 0 ? <p className="text-sm text-zinc-600 dark:text-zinc-400">No delivery yet: post a signed delivery to the receiver URL.</p> : null}
      {rows.length ? (
        <SettingsTable caption={`Deliveries of ${webhook.name}`} head={["Received", "webhook-id", "Outcome", "Run", "Error"]}>
          {rows.map((delivery) => (
            <tr key={delivery.id} data-delivery-id={delivery.id}>
              <td className={`${td} whitespace-nowrap`}>{formatTime(delivery.receivedAt)}</td>
              <td className={`${td} font-mono text-xs break-all`}>{delivery.messageId}</td>
              <td className={td}>
                <OutcomeBadge outcome={delivery.outcome} />
              </td>
              <td className={td}>
                <RunLink run={delivery.run} />
              </td>
              <td className={`${td} text-xs`}>{delivery.error ? <span className="text-red-700 dark:text-red-300">{delivery.error.code}: {delivery.error.message}</span> : "—"}</td>
            </tr>
          ))}
        </SettingsTable>
      ) : null}
    </div>
  );
}

/** How to sign a delivery by hand: HMAC-SHA256 over `id.timestamp.body` with the secret's bytes, base64, as `v1,<signature>`. */
function curlHint(url: string) {
  return [
    `# KINDGI_WEBHOOK_SECRET holds the whsec_… secret`,
    `id="msg_$(date +%s%N)"; ts="$(date +%s)"; body='{"hello":"world"}'`,
    `key="$(printf %s "\${KINDGI_WEBHOOK_SECRET#whsec_}" | base64 -d | od -An -tx1 | tr -d ' \\n')"`,
    `sig="$(printf '%s.%s.%s' "$id" "$ts" "$body" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key" -binary | base64)"`,
    `curl -X POST '${url}' -H 'Content-Type: application/json' \\`,
    `  -H "webhook-id: $id" -H "webhook-timestamp: $ts" -H "webhook-signature: v1,$sig" -d "$body"`,
  ].join("\n");
}

function CreateWebhookDialog({ projectId, isAdmin, onClose }: { projectId: string; isAdmin: boolean; onClose(): void }) {
  const create = useCreateWebhook();
  const [form, setForm] = useState({ name: "", agentId: "", version: "", userMessage: "New event: {{ payload | json }}" });
  const [pointers, setPointers] = useState<Record<string, string>>({});
  const [tools, setTools] = useState<string[]>([]);
  const chosen = useChosenDefinition(form.agentId, form.version);
  const parameterForm = useAgentVersionForm(form.agentId, chosen.resolvedVersion);
  const issues = isApiError(create.error) ? create.error.issues : [];
  const agentTools = (chosen.definition?.tools ?? []).map((tool) => tool.id);
  const created = create.data;
  if (created?.secret) {
    return (
      <Dialog open onOpenChange={(next) => (next ? null : onClose())}>
        <DialogContent className="w-[min(94vw,44rem)]" title="Your new webhook" description="Copy the signing secret now: it is shown only once and cannot be read again.">
          <div className="space-y-3">
            <CopyField id="webhook-url" label="Receiver URL" value={created.receiverUrl} />
            <CopyField id="webhook-secret" label="Signing secret" value={created.secret} />
            <figure>
              <figcaption className="text-sm">
                Deliveries follow <a className="text-indigo-700 underline dark:text-indigo-300" href="https://www.standardwebhooks.com/" target="_blank" rel="noreferrer">Standard Webhooks</a>: use a Standard Webhooks library, or sign a delivery by hand with curl:
              </figcaption>
              <pre tabIndex={0} className="mt-1 overflow-x-auto rounded bg-zinc-50 p-2 font-mono text-xs dark:bg-zinc-950">{curlHint(created.receiverUrl)}</pre>
            </figure>
            <DialogFooter>
              <Button variant="primary" onClick={onClose}>
                Done
              </Button>
            </DialogFooter>
          </div>
        </DialogContent>
      </Dialog>
    );
  }
  const fields = parameterForm.data?.fields ?? [];
  return (
    <Dialog open onOpenChange={(next) => (next ? null : onClose())}>
      <DialogContent className="w-[min(94vw,44rem)]" title="New webhook" description="Each accepted delivery starts a run as you, unattended. The receiver URL and its signing secret are shown next, once.">
        <form
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            const parameters = Object.fromEntries(Object.entries(pointers).filter(([, pointer]) => pointer.trim() !== ""));
            create.mutate({
              projectId,
              name: form.name.trim(),
              agent: { id: form.agentId, ...(form.version ? { version: form.version } : {}) },
              input: { userMessage: form.userMessage, ...(Object.keys(parameters).length ? { parameters } : {}) },
              ...(tools.length ? { toolsAllowedUnattended: tools } : {}),
            });
          }}
        >
          <Field id="webhook-name" label="Name" hint="Who sends it, e.g. “Shop orders”." issues={issues} path="/name">
            {(props) => <Input {...props} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required maxLength={200} autoFocus />}
          </Field>
          <AgentVersionPicker
            projectId={projectId}
            idPrefix="webhook"
            agentId={form.agentId}
            version={form.version}
            issues={issues}
            onChange={(next) => {
              setForm({ ...form, agentId: next.agentId, version: next.version });
              setPointers({});
              setTools([]);
            }}
          />
          <Field
            id="webhook-message"
            label="User message template"
            hint={
              <>
                Liquid, with the delivery&apos;s JSON body as <code className="font-mono">payload</code>, e.g. <code className="font-mono">New order {"{{ payload.order.id }}"}</code>.
              </>
            }
            issues={issues}
            path="/input/userMessage"
          >
            {(props) => <Textarea {...props} rows={3} className="font-mono" value={form.userMessage} onChange={(e) => setForm({ ...form, userMessage: e.target.value })} required maxLength={100_000} spellCheck={false} />}
          </Field>
          {form.agentId ? (
            <fieldset>
              <legend className="text-sm font-medium text-zinc-800 dark:text-zinc-200">Parameters from the payload</legend>
              <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">A JSON pointer into the payload for each parameter, e.g. <code className="font-mono">/customer/name</code>; one that finds nothing leaves the parameter out.</p>
              {parameterForm.isPending && chosen.resolvedVersion ? <SkeletonRows rows={2} label="Loading the parameters" /> : null}
              <ErrorBanner error={parameterForm.error} title="Cannot load the parameters" />
              {parameterForm.data && fields.length === 0 ? <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">This agent takes no parameters.</p> : null}
              <div className="mt-2 space-y-2">
                {fields.map((field) => {
                  const path = `/input/parameters/${field.name.replace(/~/g, "~0").replace(/\//g, "~1")}`;
                  return (
                    <Field key={field.name} id={`webhook-pointer-${field.name}`} label={`${field.label ?? field.name}${field.required ? " (required)" : ""}`} hint={field.description || undefined} issues={issues} path={path}>
                      {(props) => <Input {...props} className="font-mono" placeholder={`/${field.name}`} value={pointers[field.name] ?? ""} onChange={(e) => setPointers({ ...pointers, [field.name]: e.target.value })} maxLength={1000} spellCheck={false} />}
                    </Field>
                  );
                })}
              </div>
              <FieldError issues={issues} path="/input/parameters" />
            </fieldset>
          ) : null}
          <UnattendedToolsPicker idPrefix="webhook" tools={agentTools} value={tools} onChange={setTools} isAdmin={isAdmin} issues={issues} />
          <ErrorBanner error={create.error} title="Cannot create the webhook" />
          <DialogFooter>
            <Button onClick={onClose}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={create.isPending || !form.name.trim() || !form.agentId}>
              {create.isPending ? <Spinner /> : null}
              Create webhook
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
