"use client";
import Link from "next/link";
import { forwardRef, useImperativeHandle, useMemo, useState } from "react";
import { diffLines } from "diff";
import { SchemaForm } from "@/components/forms/schema-form";
import { GrantConditionRows } from "@/components/approvals/grant-condition-form";
import { ApprovalConversation } from "@/components/approvals/approval-conversation";
import { conditionFields, conditionInWords, conditionSchema, type ConditionRow } from "@/lib/client/grant-condition";
import { Badge, Button, Dialog, DialogContent, DialogFooter, ErrorBanner, Spinner, Textarea, cn } from "@/components/ui";
import { isApiError } from "@/lib/client/api";
import { useToolVersion } from "@/lib/client/use-tool-version";
import { useCountdown, useDecideApproval, type Approval } from "@/lib/client/use-approvals";

const FOLD_AT = 80;

export function originInWords(origin: Approval["origin"]): string {
  switch (origin?.kind) {
    case "session":
      return "a person in the console";
    case "api-key":
      return "an API key";
    case "service-account":
      return "a service account";
    case "schedule":
      return "a schedule";
    case "webhook":
      return "a webhook";
    case "mcp":
      return typeof origin.apiKeyName === "string" && origin.apiKeyName ? `started over MCP by ${origin.apiKeyName}` : "started over MCP";
    default:
      return "unknown";
  }
}

export function formatLeft(seconds: number): string {
  if (seconds <= 0) return "expired";
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h ? `${h}h ${m}m left` : m ? `${m}m ${String(s).padStart(2, "0")}s left` : `${s}s left`;
}

export function Expiry({ iso }: { iso: string }) {
  const left = useCountdown(iso);
  return (
    <span className={cn("tabular-nums", left < 300 ? "text-red-700 dark:text-red-300" : "text-zinc-700 dark:text-zinc-300")} title={new Date(iso).toLocaleString()}>
      {formatLeft(left)}
    </span>
  );
}

/** The grant's scope in words; `condition`: the conditions in words (`amount ≤ 100`). */
export function grantScope(approval: Approval, condition = ""): string {
  return `calls of ${approval.tool?.id ?? "this tool"} by ${approval.agent?.id ?? "this agent"} in this project${condition ? ` where ${condition}` : ""}`;
}

function Value({ value }: { value: unknown }) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (text.length <= FOLD_AT) return <span className="break-all font-mono">{text}</span>;
  return (
    <details>
      <summary className="cursor-pointer break-all font-mono">{text.slice(0, FOLD_AT)}… <span className="font-sans text-xs text-indigo-700 dark:text-indigo-300">({text.length} characters, show all)</span></summary>
      <pre className="mt-1 whitespace-pre-wrap break-all font-mono text-xs">{typeof value === "string" ? value : JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}

/** The arguments as a property table (long values folded), the exact JSON one click away. */
export function ArgumentsTable({ value }: { value: unknown }) {
  const [raw, setRaw] = useState(false);
  const entries = value && typeof value === "object" && !Array.isArray(value) ? Object.entries(value as Record<string, unknown>) : null;
  return (
    <div>
      <div className="mb-1 flex items-center justify-between">
        <h3 className="text-sm font-semibold">Arguments</h3>
        <Button size="sm" variant="ghost" onClick={() => setRaw((r) => !r)} aria-pressed={raw}>
          {raw ? "Table" : "JSON"}
        </Button>
      </div>
      {raw || !entries ? (
        <pre data-testid="arguments-json" className="overflow-x-auto rounded bg-zinc-50 p-2 font-mono text-xs dark:bg-zinc-900">{JSON.stringify(value, null, 2)}</pre>
      ) : (
        <table className="w-full text-sm" data-testid="arguments-table">
          <thead className="sr-only">
            <tr>
              <th>Name</th>
              <th>Value</th>
            </tr>
          </thead>
          <tbody>
            {entries.map(([key, v]) => (
              <tr key={key} className="border-t border-zinc-200 align-top dark:border-zinc-800">
                <th scope="row" className="w-1/3 py-1 pr-2 text-left font-medium text-zinc-700 dark:text-zinc-300">{key}</th>
                <td className="py-1">
                  <Value value={v} />
                </td>
              </tr>
            ))}
            {entries.length === 0 ? (
              <tr>
                <td colSpan={2} className="py-1 text-zinc-600 dark:text-zinc-400">No arguments</td>
              </tr>
            ) : null}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function ArgumentsDiff({ before, after }: { before: unknown; after: unknown }) {
  const parts = diffLines(JSON.stringify(before, null, 2) + "\n", JSON.stringify(after, null, 2) + "\n");
  return (
    <pre data-testid="arguments-diff" aria-label="Changes to the arguments" className="overflow-x-auto rounded border border-zinc-200 p-2 font-mono text-xs dark:border-zinc-800">
      {parts.map((part, index) =>
        part.value
          .replace(/\n$/, "")
          .split("\n")
          .map((line, i) => (
            <div key={`${index}-${i}`} className={part.added ? "bg-emerald-50 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200" : part.removed ? "bg-red-50 text-red-900 dark:bg-red-950 dark:text-red-200" : ""}>
              {part.added ? <ins className="no-underline">+ {line}</ins> : part.removed ? <del className="no-underline">- {line}</del> : `  ${line}`}
            </div>
          )),
      )}
    </pre>
  );
}

export type ApprovalActionsHandle = { approve(): void; reject(): void; edit(): void; remember(): void };

/** One approval: what the call will do, its arguments, its run, and the actions (approve, remember, reject, edit). */
export const ApprovalDetail = forwardRef<ApprovalActionsHandle, { approval: Approval; onDecided?(approval: Approval): void; compact?: boolean }>(function ApprovalDetail({ approval, onDecided, compact }, ref) {
  const decide = useDecideApproval();
  const [dialog, setDialog] = useState<null | "reject" | "remember" | "edit">(null);
  const [reason, setReason] = useState("");
  const [edited, setEdited] = useState<unknown>(approval.arguments);
  const [reviewing, setReviewing] = useState(false);
  const pending = approval.status === "pending";
  const toolVersion = useToolVersion(approval.tool?.id ?? "", dialog === "edit" || dialog === "remember" ? approval.tool?.version : null);
  const [conditionRows, setConditionRows] = useState<ConditionRow[]>([]);
  const [conditionTried, setConditionTried] = useState(false);
  const fields = useMemo(() => conditionFields(toolVersion.data?.manifest?.input), [toolVersion.data]);
  const built = conditionSchema(conditionRows, fields);
  const openRemember = () => {
    decide.reset();
    setConditionRows([]);
    setConditionTried(false);
    setDialog("remember");
  };
  const remember = () => {
    setConditionTried(true);
    if (built.issues.length) return;
    submit({ decision: "approve", remember: built.condition ? { condition: built.condition } : true });
  };

  const submit = (body: Parameters<typeof decide.mutate>[0]["body"]) =>
    decide.mutate(
      { approvalId: approval.id, body },
      {
        onSuccess: (decided) => {
          setDialog(null);
          setReviewing(false);
          onDecided?.(decided);
        },
      },
    );
  const openEdit = () => {
    setEdited(approval.arguments);
    setReviewing(false);
    decide.reset();
    setDialog("edit");
  };
  useImperativeHandle(ref, () => ({
    approve: () => pending && !decide.isPending && submit({ decision: "approve" }),
    reject: () => pending && (decide.reset(), setReason(""), setDialog("reject")),
    edit: () => pending && approval.kind === "tool-call" && openEdit(),
    remember: () => pending && approval.kind === "tool-call" && openRemember(),
  }));

  const title = approval.kind === "session" ? `Next turn of ${approval.agent?.id ?? "an agent"}` : `${approval.tool?.id ?? "a tool"} @ ${approval.tool?.version ?? "?"}`;
  return (
    <article aria-labelledby={`approval-${approval.id}-title`} data-approval-id={approval.id} className="min-w-0">
      <header className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <h2 id={`approval-${approval.id}-title`} className="break-all text-lg font-semibold">{title}</h2>
          <p className="text-sm text-zinc-700 dark:text-zinc-300">
            {approval.kind === "session" ? "The conversation goes on only if someone allows it." : `Asks because the tool is ${approval.reason === "mutating" ? "mutating" : approval.reason}.`}
          </p>
        </div>
        <Badge tone={pending ? "warning" : approval.status === "approved" ? "success" : "danger"}>{approval.status}</Badge>
      </header>

      <dl className={cn("mt-3 grid gap-x-4 gap-y-1 text-sm", compact ? "grid-cols-1" : "grid-cols-[auto_1fr]")}>
        <dt className="font-medium text-zinc-600 dark:text-zinc-400">Effects</dt>
        <dd>
          {approval.effects.length ? (
            <ul className="flex flex-wrap gap-1">
              {approval.effects.map((effect, index) => (
                <li key={index}>
                  <Badge>{[effect.kind, effect.resource].filter(Boolean).join(": ")}</Badge>
                </li>
              ))}
            </ul>
          ) : (
            "none declared"
          )}
        </dd>
        <dt className="font-medium text-zinc-600 dark:text-zinc-400">Run</dt>
        <dd>
          <Link href={`/runs/${approval.runId}`} className="font-mono text-indigo-700 hover:underline dark:text-indigo-300">{approval.runId.slice(0, 8)}</Link>
        </dd>
        <dt className="font-medium text-zinc-600 dark:text-zinc-400">Agent</dt>
        <dd className="break-all">{approval.agent ? `${approval.agent.id} @ ${approval.agent.version}` : "—"}</dd>
        <dt className="font-medium text-zinc-600 dark:text-zinc-400">Started by</dt>
        <dd>
          {originInWords(approval.origin)} · asked {new Date(approval.requestedAt).toLocaleString()}
        </dd>
        <dt className="font-medium text-zinc-600 dark:text-zinc-400">{pending ? "Expires" : "Decided"}</dt>
        <dd>{pending ? <Expiry iso={approval.expiresAt} /> : `${approval.decidedAt ? new Date(approval.decidedAt).toLocaleString() : ""}${approval.rationale ? ` · “${approval.rationale}”` : ""}`}</dd>
      </dl>

      {approval.kind === "session" ? <ApprovalConversation approval={approval} /> : null}

      {approval.kind === "tool-call" ? (
        <div className="mt-4">
          <ArgumentsTable value={approval.editedArguments ?? approval.arguments} />
          {approval.editedArguments ? (
            <div className="mt-2">
              <h3 className="mb-1 text-sm font-semibold">Edited by the reviewer</h3>
              <ArgumentsDiff before={approval.arguments} after={approval.editedArguments} />
            </div>
          ) : null}
        </div>
      ) : null}

      {decide.isError && dialog === null ? <ErrorBanner className="mt-3" error={decide.error} title="The decision was not recorded" /> : null}

      {pending ? (
        <div className="mt-4 flex flex-wrap gap-2">
          <Button variant="primary" onClick={() => submit({ decision: "approve" })} disabled={decide.isPending} aria-keyshortcuts="a">
            Approve
          </Button>
          {approval.kind === "tool-call" ? (
            <Button onClick={openRemember} disabled={decide.isPending}>
              Approve and remember…
            </Button>
          ) : null}
          {approval.kind === "tool-call" ? (
            <Button onClick={openEdit} disabled={decide.isPending} aria-keyshortcuts="e">
              Edit then approve…
            </Button>
          ) : null}
          <Button variant="danger" onClick={() => (decide.reset(), setReason(""), setDialog("reject"))} disabled={decide.isPending} aria-keyshortcuts="r">
            Reject…
          </Button>
          {decide.isPending ? <Spinner label="Recording the decision" /> : null}
        </div>
      ) : null}

      <Dialog open={dialog === "reject"} onOpenChange={(open) => !open && setDialog(null)}>
        <DialogContent title="Reject this call" description="The model is told the call was rejected, with your reason.">
          <form
            onSubmit={(event) => {
              event.preventDefault();
              if (reason.trim()) submit({ decision: "reject", rationale: reason.trim() });
            }}
          >
            <label htmlFor={`reason-${approval.id}`} className="text-sm font-medium">Reason (required)</label>
            <Textarea id={`reason-${approval.id}`} value={reason} onChange={(event) => setReason(event.target.value)} required rows={3} className="mt-1 w-full" />
            {decide.isError ? <ErrorBanner className="mt-3" error={decide.error} title="The rejection was not recorded" /> : null}
            <DialogFooter>
              <Button type="button" onClick={() => setDialog(null)}>Cancel</Button>
              <Button type="submit" variant="danger" disabled={!reason.trim() || decide.isPending}>Reject</Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>

      <Dialog open={dialog === "remember"} onOpenChange={(open) => !open && setDialog(null)}>
        <DialogContent title="Approve and remember" description="Approves this call and stops asking for similar ones until the grant is revoked." className="max-w-2xl">
          <p className="text-sm" data-testid="grant-scope">
            From now on, allow <strong>{grantScope(approval, conditionInWords(conditionRows, fields))}</strong> without asking.
          </p>
          {toolVersion.isPending ? <Spinner label="Loading the tool's input schema" /> : null}
          {toolVersion.isError ? <ErrorBanner className="mt-3" error={toolVersion.error} title="Cannot load the tool's input schema: the grant can only be unconditional" /> : null}
          {toolVersion.data ? <GrantConditionRows idPrefix={`condition-${approval.id.slice(0, 8)}`} fields={fields} rows={conditionRows} onChange={setConditionRows} issues={built.issues} showIssues={conditionTried} /> : null}
          {conditionRows.length ? <p className="mt-2 text-xs text-zinc-600 dark:text-zinc-400">A later call outside the condition, or without a field it names, asks again.</p> : null}
          {decide.isError ? <ErrorBanner className="mt-3" error={decide.error} title="The decision was not recorded" /> : null}
          <DialogFooter>
            <Button onClick={() => setDialog(null)}>Cancel</Button>
            <Button variant="primary" onClick={remember} disabled={decide.isPending}>
              Approve and remember
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>

      <Dialog open={dialog === "edit"} onOpenChange={(open) => !open && setDialog(null)}>
        <DialogContent title="Edit the arguments, then approve" description="The call runs with the edited arguments; the original ones stay on record." className="max-w-2xl">
          {toolVersion.isPending ? <Spinner label="Loading the tool's input schema" /> : null}
          {toolVersion.isError ? <ErrorBanner error={toolVersion.error} title="Cannot load the tool's input schema" /> : null}
          {toolVersion.data && !reviewing ? (
            <SchemaForm
              schema={toolVersion.data.manifest?.input ?? {}}
              value={edited}
              onChange={setEdited}
              onSubmit={(value) => {
                setEdited(value);
                setReviewing(true);
              }}
              idPrefix={`edit-${approval.id.slice(0, 8)}`}
              submitLabel="Review changes"
            >
              <Button type="button" onClick={() => setDialog(null)}>Cancel</Button>
            </SchemaForm>
          ) : null}
          {reviewing ? (
            <div>
              <h3 className="mb-1 text-sm font-semibold">Edited against original</h3>
              <ArgumentsDiff before={approval.arguments} after={edited} />
              {decide.isError ? <ErrorBanner className="mt-3" error={decide.error} title={isApiError(decide.error) && decide.error.issues.length ? "The edited arguments are not valid" : "The decision was not recorded"} /> : null}
              <DialogFooter>
                <Button onClick={() => setReviewing(false)}>Back to the form</Button>
                <Button variant="primary" onClick={() => submit({ decision: "approve", arguments: edited })} disabled={decide.isPending}>
                  Approve with these arguments
                </Button>
              </DialogFooter>
            </div>
          ) : null}
        </DialogContent>
      </Dialog>
    </article>
  );
});
