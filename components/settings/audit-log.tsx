"use client";

/**
 * `/settings/audit-log`: the tenant's audit events, newest first, filtered as GET /v1/audit allows (action, subject,
 * actor, time range), 50 at a time with "Load more"; each event's data folded as JSON. Tenant admins only.
 */
import { useState } from "react";
import { Button, EmptyState, ErrorBanner, Field, Input, PageHeader, Select, SkeletonRows, Spinner } from "@/components/ui";
import { formatTime, shortId } from "@/components/runs/run-bits";
import { isApiError } from "@/lib/client/api";
import { useAuditLog, type AuditEvent, type AuditFilters } from "@/lib/client/use-audit-log";
import { useIdentity } from "@/lib/client/use-identity";
import { useMembers } from "@/lib/client/use-settings";
import { SettingsTable, td } from "./settings-nav";
import { useUserName } from "./trigger-bits";

const SUBJECT_TYPES = ["api-key", "approval", "approval-grant", "connection", "member", "notification-endpoint", "schedule", "secret", "webhook"];

type FilterForm = { action: string; subjectType: string; subjectId: string; actorId: string; since: string; until: string };
const EMPTY: FilterForm = { action: "", subjectType: "", subjectId: "", actorId: "", since: "", until: "" };

/** A `datetime-local` value (the browser's time) as an instant; "" stays out of the query. */
function instant(local: string): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function toFilters(form: FilterForm): AuditFilters {
  const filters: AuditFilters = {};
  if (form.action.trim()) filters.action = form.action.trim();
  if (form.subjectType) filters.subjectType = form.subjectType;
  if (form.subjectId.trim()) filters.subjectId = form.subjectId.trim();
  if (form.actorId) filters.actorId = form.actorId;
  const since = instant(form.since);
  const until = instant(form.until);
  if (since) filters.since = since;
  if (until) filters.until = until;
  return filters;
}

export function AuditLogPage() {
  const identity = useIdentity();
  const isAdmin = identity.data?.user.role === "admin";
  const [draft, setDraft] = useState<FilterForm>(EMPTY);
  const [filters, setFilters] = useState<AuditFilters>({});
  const audit = useAuditLog(filters, { enabled: isAdmin });
  const members = useMembers();
  const events = audit.data?.pages.flatMap((page) => page.data) ?? [];
  const issues = isApiError(audit.error) ? audit.error.issues.map((issue) => ({ ...issue, path: issue.path.replace(/^\/query/, "") })) : [];
  const filtered = Object.keys(filters).length > 0;
  return (
    <div>
      <PageHeader
        title="Audit log"
        description="Who did what, newest first: decisions, grants and revocations, API keys, members, connections, secrets, schedules, webhooks and notification endpoints. Secrets and tokens never appear here."
      />
      {identity.data && !isAdmin ? <p className="mb-3 rounded-md border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800">Only admins read the audit log; ask an admin what happened.</p> : null}
      {isAdmin ? (
        <form
          aria-label="Filter the audit log"
          className="mb-4 grid grid-cols-2 gap-3 rounded-lg border border-zinc-200 p-3 md:grid-cols-3 dark:border-zinc-800"
          onSubmit={(e) => {
            e.preventDefault();
            setFilters(toFilters(draft));
          }}
        >
          <Field id="audit-action" label="Action" issues={issues} path="/action">
            {(props) => <Input {...props} className="font-mono" placeholder="schedule.paused" value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })} />}
          </Field>
          <Field id="audit-subject-type" label="Subject" issues={issues} path="/subjectType">
            {(props) => (
              <Select {...props} value={draft.subjectType} onChange={(e) => setDraft({ ...draft, subjectType: e.target.value })}>
                <option value="">Any subject</option>
                {SUBJECT_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {type}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          <Field id="audit-subject-id" label="Subject id" issues={issues} path="/subjectId">
            {(props) => <Input {...props} className="font-mono" value={draft.subjectId} onChange={(e) => setDraft({ ...draft, subjectId: e.target.value })} />}
          </Field>
          <Field id="audit-actor" label="Actor" issues={issues} path="/actorId">
            {(props) => (
              <Select {...props} value={draft.actorId} onChange={(e) => setDraft({ ...draft, actorId: e.target.value })}>
                <option value="">Anyone</option>
                {(members.data ?? []).map((member) => (
                  <option key={member.id} value={member.id}>
                    {member.name || member.email}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          <Field id="audit-since" label="From" issues={issues} path="/since">
            {(props) => <Input {...props} type="datetime-local" value={draft.since} onChange={(e) => setDraft({ ...draft, since: e.target.value })} />}
          </Field>
          <Field id="audit-until" label="Until" issues={issues} path="/until">
            {(props) => <Input {...props} type="datetime-local" value={draft.until} onChange={(e) => setDraft({ ...draft, until: e.target.value })} />}
          </Field>
          <div className="col-span-full flex gap-2">
            <Button type="submit" variant="primary">
              Apply filters
            </Button>
            <Button
              onClick={() => {
                setDraft(EMPTY);
                setFilters({});
              }}
              disabled={!filtered}
            >
              Clear
            </Button>
          </div>
        </form>
      ) : null}
      <ErrorBanner error={audit.error} title="Cannot read the audit log" />
      {isAdmin && audit.isPending ? <SkeletonRows rows={5} label="Loading the audit log" /> : null}
      {audit.data && events.length === 0 ? (
        <EmptyState title={filtered ? "No event matches these filters" : "Nothing recorded yet"}>
          {filtered ? "Widen the time range or clear a filter." : "Minting a key, creating a schedule or revoking a grant records an event here."}
        </EmptyState>
      ) : null}
      {events.length ? (
        <SettingsTable caption="Audit events, newest first" head={["When", "Action", "Subject", "Actor", "Data"]}>
          {events.map((event) => (
            <AuditRow key={event.id} event={event} />
          ))}
        </SettingsTable>
      ) : null}
      {audit.hasNextPage ? (
        <div className="mt-3 flex justify-center">
          <Button onClick={() => void audit.fetchNextPage()} disabled={audit.isFetchingNextPage}>
            {audit.isFetchingNextPage ? <Spinner /> : null}
            Load more
          </Button>
        </div>
      ) : null}
    </div>
  );
}

function AuditRow({ event }: { event: AuditEvent }) {
  const userName = useUserName();
  return (
    <tr data-audit-action={event.action}>
      <td className={`${td} whitespace-nowrap text-xs`}>{formatTime(event.createdAt)}</td>
      <td className={`${td} font-mono text-xs`}>{event.action}</td>
      <td className={`${td} text-xs`}>
        {event.subjectType} <span className="font-mono break-all text-zinc-600 dark:text-zinc-400" title={event.subjectId}>{event.subjectId.length > 20 ? shortId(event.subjectId) : event.subjectId}</span>
      </td>
      <td className={`${td} text-xs`}>{userName(event.actorId)}</td>
      <td className={`${td} text-xs`}>
        {event.data ? (
          <details>
            <summary className="cursor-pointer text-indigo-700 dark:text-indigo-300">{Object.keys(event.data).length} fields</summary>
            <pre tabIndex={0} className="mt-1 max-w-lg overflow-x-auto rounded bg-zinc-50 p-2 font-mono dark:bg-zinc-900">{JSON.stringify(event.data, null, 2)}</pre>
          </details>
        ) : (
          "—"
        )}
      </td>
    </tr>
  );
}
