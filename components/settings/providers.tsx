"use client";

/**
 * `/settings/providers`: the providers runs are routed to, in routing order, each marked with what it serves — a
 * model (`llm-inference`) or embeddings (`embedding`, retrieval by meaning); add an OpenAI-compatible, Anthropic or
 * OpenAI-compatible embeddings one, remove the tenant's own.
 */
import { useState } from "react";
import { Badge, Button, Dialog, DialogContent, DialogFooter, ErrorBanner, Field, Input, PageHeader, Select, SkeletonRows, Spinner } from "@/components/ui";
import { isApiError } from "@/lib/client/api";
import { useCurrentProject } from "@/lib/client/current-project";
import { EMBEDDINGS_KIND, emptyProviderForm, modelDetails, providerBody, type ProviderForm } from "@/lib/client/provider-form";
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
        description="Where agents' model calls and the memory's embeddings go, in routing order: the tenant's own providers first, then those configured by the server's environment, then the development ones. Model providers answer turns; embedding providers turn facts and queries into vectors for retrieval by meaning. dev-embed and dev-echo are always there and are not real models."
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
        <SettingsTable caption="Model providers in routing order" head={["#", "Provider", "Serves", "Kind", "Source", "Models", "Key", ""]}>
          {rows.map((provider, index) => (
            <ProviderRow key={provider.id} provider={provider} index={index} />
          ))}
        </SettingsTable>
      ) : null}
      {providers.data && rows.every((p) => p.source !== "tenant") ? (
        <p className="mt-3 text-sm text-zinc-600 dark:text-zinc-400">No provider of your own yet: add an OpenAI-compatible endpoint (OpenAI, Ollama, vLLM…), Anthropic, or an OpenAI-compatible embeddings endpoint for retrieval by meaning, with its key stored as a secret.</p>
      ) : null}
    </div>
  );
}

function ProviderRow({ provider, index }: { provider: Provider; index: number }) {
  const remove = useDeleteProvider();
  const dev = DEV_KINDS.has(provider.kind);
  return (
    <tr>
      <td className={`${td} font-mono text-xs`}>{index + 1}</td>
      <td className={td}>
        <span className="font-mono font-medium">{provider.id}</span>
        {provider.baseUrl ? <div className="font-mono text-xs break-all text-zinc-600 dark:text-zinc-400">{provider.baseUrl}</div> : null}
      </td>
      <td className={td}>
        <CapabilityBadge kind={provider.capabilityKind} />
      </td>
      <td className={td}>
        <span className="font-mono text-xs">{provider.kind}</span> {dev ? <Badge tone="warning">not a real model</Badge> : null}
      </td>
      <td className={td}>
        <Badge>{provider.source}</Badge>
      </td>
      <td className={`${td} text-xs`}>
        {provider.models.map((model) => (
          <div key={model.name}>
            <span className="font-mono">{model.name}</span>
            {modelDetails(model) ? <div className="text-zinc-600 dark:text-zinc-400">{modelDetails(model)}</div> : null}
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

/** The built-in development providers: deterministic stand-ins, not real models. */
const DEV_KINDS = new Set(["dev-echo", "scripted", "dev-embed"]);

const CAPABILITY: Record<Provider["capabilityKind"], { label: string; title: string; tone: "neutral" | "accent" }> = {
  "llm-inference": { label: "model", title: "A model provider (capability kind llm-inference): answers agents' turns", tone: "neutral" },
  embedding: { label: "embeddings", title: "An embedding provider (capability kind embedding): vectors for retrieval by meaning", tone: "accent" },
};

function CapabilityBadge({ kind }: { kind: Provider["capabilityKind"] | undefined }) {
  const known = kind ? CAPABILITY[kind] : undefined;
  if (!known) return <Badge>{kind ?? "?"}</Badge>;
  return (
    <Badge tone={known.tone} title={known.title}>
      {known.label}
    </Badge>
  );
}

function ProviderDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const register = useRegisterProvider();
  const secrets = useSecrets();
  const [form, setForm] = useState<ProviderForm>(emptyProviderForm);
  const embeddings = form.kind === EMBEDDINGS_KIND;
  const issues = isApiError(register.error) ? register.error.issues : [];
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  const close = (next: boolean) => {
    onOpenChange(next);
    if (!next) register.reset();
  };
  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent title="Add a provider" description="A model provider answers turns; an embedding provider embeds facts for retrieval by meaning. Its API key is read from a stored secret on every call, never shown.">
        <form
          className="space-y-3"
          onSubmit={(e) => {
            e.preventDefault();
            register.mutate(providerBody(form), {
              onSuccess: () => {
                setForm(emptyProviderForm);
                close(false);
              },
            });
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
                <option value={EMBEDDINGS_KIND}>OpenAI-compatible (Embeddings)</option>
              </Select>
            )}
          </Field>
          <Field id="provider-url" label="Base URL" hint={embeddings ? "e.g. https://api.openai.com/v1 — texts are posted to its /embeddings" : "e.g. https://api.openai.com/v1"} issues={issues} path="/baseUrl">
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
          <Field id="provider-model" label="Model" hint={`The model name sent to the API, e.g. ${embeddings ? "text-embedding-3-small or nomic-embed-text" : "gpt-4o-mini"}`} issues={issues} path="/models/0/name">
            {(props) => <Input {...props} className="font-mono" value={form.model} onChange={set("model")} required />}
          </Field>
          {embeddings ? (
            <Field id="provider-dimensions" label="Dimensions (optional)" hint="The length of the model's vectors, sent with each request and checked against every answer. Leave it empty for a server that refuses the parameter." issues={issues} path="/models/0/dimensions">
              {(props) => <Input {...props} className="font-mono" inputMode="numeric" value={form.dimensions} onChange={set("dimensions")} placeholder="e.g. 1536" />}
            </Field>
          ) : null}
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
