"use client";

/** `/settings/providers`: the providers runs are routed to, in routing order; add an OpenAI-compatible or Anthropic one, remove the tenant's own. */
import { useState } from "react";
import { Badge, Button, Dialog, DialogContent, DialogFooter, ErrorBanner, Field, Input, PageHeader, Select, SkeletonRows, Spinner } from "@/components/ui";
import { isApiError } from "@/lib/client/api";
import { useCurrentProject } from "@/lib/client/current-project";
import { useDeleteProvider, useProviders, useRegisterProvider, useSecrets, type Provider } from "@/lib/client/use-settings";
import { SettingsTable, td } from "./settings-nav";

export function ProvidersPage() {
  const { projectId } = useCurrentProject();
  const providers = useProviders(projectId);
  const [open, setOpen] = useState(false);
  const rows = providers.data ?? [];
  return (
    <div>
      <PageHeader
        title="Model providers"
        description="Where agents' model calls go, in routing order: the tenant's own providers first, then those configured by the server's environment, then the development ones. dev-echo is always last and answers without a model."
        actions={
          <Button variant="primary" onClick={() => setOpen(true)}>
            Add a provider
          </Button>
        }
      />
      <ProviderDialog open={open} onOpenChange={setOpen} />
      <ErrorBanner error={providers.error} title="Cannot list the providers" />
      {providers.isPending ? <SkeletonRows rows={3} label="Loading the providers" /> : null}
      {rows.length ? (
        <SettingsTable caption="Model providers in routing order" head={["#", "Provider", "Kind", "Source", "Models", "Key", ""]}>
          {rows.map((provider, index) => (
            <ProviderRow key={provider.id} provider={provider} index={index} />
          ))}
        </SettingsTable>
      ) : null}
      {providers.data && rows.every((p) => p.source !== "tenant") ? (
        <p className="mt-3 text-sm text-zinc-600 dark:text-zinc-400">No provider of your own yet: add an OpenAI-compatible endpoint (OpenAI, Ollama, vLLM…) or Anthropic, with its key stored as a secret.</p>
      ) : null}
    </div>
  );
}

function ProviderRow({ provider, index }: { provider: Provider; index: number }) {
  const remove = useDeleteProvider();
  const dev = provider.kind === "dev-echo" || provider.kind === "scripted";
  return (
    <tr>
      <td className={`${td} font-mono text-xs`}>{index + 1}</td>
      <td className={td}>
        <span className="font-mono font-medium">{provider.id}</span>
        {provider.baseUrl ? <div className="font-mono text-xs break-all text-zinc-600 dark:text-zinc-400">{provider.baseUrl}</div> : null}
      </td>
      <td className={td}>
        {provider.kind} {dev ? <Badge tone="warning">not a real model</Badge> : null}
      </td>
      <td className={td}>
        <Badge>{provider.source}</Badge>
      </td>
      <td className={`${td} text-xs`}>
        {provider.models.map((model) => (
          <div key={model.name}>
            <span className="font-mono">{model.name}</span>
            {model.features.length ? <span className="text-zinc-600 dark:text-zinc-400"> · {model.features.join(", ")}</span> : null}
          </div>
        ))}
      </td>
      <td className={`${td} font-mono text-xs`}>{provider.apiKeySecret ? `secret ${provider.apiKeySecret}` : "—"}</td>
      <td className={`${td} text-right`}>
        {provider.source === "tenant" ? (
          <>
            <Button size="sm" onClick={() => remove.mutate(provider.id)} disabled={remove.isPending} aria-label={`Remove ${provider.id}`}>
              Remove
            </Button>
            <ErrorBanner className="mt-1 text-left" error={remove.error} title="Cannot remove" />
          </>
        ) : null}
      </td>
    </tr>
  );
}

function ProviderDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const register = useRegisterProvider();
  const secrets = useSecrets();
  const [form, setForm] = useState({ id: "", kind: "openai-compatible", baseUrl: "", apiKeySecret: "", model: "" });
  const issues = isApiError(register.error) ? register.error.issues : [];
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  const close = (next: boolean) => {
    onOpenChange(next);
    if (!next) register.reset();
  };
  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent title="Add a model provider" description="Its API key is read from a stored secret on every call; it is never shown.">
        <form
          className="space-y-3"
          onSubmit={(e) => {
            e.preventDefault();
            register.mutate({ id: form.id.trim(), kind: form.kind, baseUrl: form.baseUrl.trim(), apiKeySecret: form.apiKeySecret, models: [{ name: form.model.trim() }] }, { onSuccess: () => close(false) });
          }}
        >
          <Field id="provider-id" label="Id" hint="e.g. local-ollama" issues={issues} path="/id">
            {(props) => <Input {...props} className="font-mono" value={form.id} onChange={set("id")} required />}
          </Field>
          <Field id="provider-kind" label="Kind" issues={issues} path="/kind">
            {(props) => (
              <Select {...props} value={form.kind} onChange={set("kind")}>
                <option value="openai-compatible">OpenAI-compatible (Chat Completions)</option>
                <option value="anthropic">Anthropic (Messages)</option>
              </Select>
            )}
          </Field>
          <Field id="provider-url" label="Base URL" hint="e.g. https://api.openai.com/v1" issues={issues} path="/baseUrl">
            {(props) => <Input {...props} className="font-mono" value={form.baseUrl} onChange={set("baseUrl")} required />}
          </Field>
          <Field id="provider-secret" label="API key secret" hint="Set the key under Secrets first." issues={issues} path="/apiKeySecret">
            {(props) => (
              <Select {...props} value={form.apiKeySecret} onChange={set("apiKeySecret")} required>
                <option value="">Choose a secret…</option>
                {(secrets.data ?? []).map((secret) => (
                  <option key={secret.name} value={secret.name}>
                    {secret.name}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          <Field id="provider-model" label="Model" hint="The model name sent to the API, e.g. gpt-4o-mini" issues={issues} path="/models/0/name">
            {(props) => <Input {...props} className="font-mono" value={form.model} onChange={set("model")} required />}
          </Field>
          <ErrorBanner error={register.error} title="Cannot add the provider" />
          <DialogFooter>
            <Button onClick={() => close(false)}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={register.isPending}>
              {register.isPending ? <Spinner /> : null}
              Add provider
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
