"use client";

/** `/settings/notifications`: where the project's approval notifications go (signed, retried); add one (its secret shown once), send a test, remove one, see deliveries. Project admins change them. */
import { useState } from "react";
import { Badge, Button, Dialog, DialogContent, DialogFooter, EmptyState, ErrorBanner, Field, Input, PageHeader, Select, SkeletonRows, Spinner } from "@/components/ui";
import { FieldError } from "@/components/ui/field-error";
import { formatTime } from "@/components/runs/run-bits";
import { isApiError } from "@/lib/client/api";
import { useCurrentProject } from "@/lib/client/current-project";
import { useIdentity } from "@/lib/client/use-identity";
import {
  useCreateNotificationEndpoint,
  useDeleteNotificationEndpoint,
  useNotificationDeliveries,
  useNotificationEndpoints,
  useTestNotificationEndpoint,
  type NotificationEndpoint,
  type NotificationEvent,
} from "@/lib/client/use-notification-endpoints";
import { SettingsTable, td } from "./settings-nav";
import { CopyField, useUserName } from "./trigger-bits";

const EVENTS: { value: NotificationEvent; label: string }[] = [
  { value: "approval.requested", label: "An approval is requested" },
  { value: "approval.decided", label: "An approval is decided" },
];

export function NotificationsPage() {
  const { projectId } = useCurrentProject();
  const identity = useIdentity();
  const endpoints = useNotificationEndpoints(projectId);
  const [open, setOpen] = useState(false);
  const isAdmin = identity.data?.user.role === "admin";
  const rows = endpoints.data?.data ?? [];
  const addButton = (
    <Button variant="primary" disabled={!isAdmin} onClick={() => setOpen(true)}>
      Add an endpoint
    </Button>
  );
  return (
    <div>
      <PageHeader
        title="Notifications"
        description="Approval requests and decisions are POSTed to these URLs, signed with Standard Webhooks headers and retried with backoff. A notification carries a link to the approval, never the call's arguments or any secret. Slack incoming-webhook URLs get a Slack message."
        actions={addButton}
      />
      {identity.data && !isAdmin ? <p className="mb-3 rounded-md border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800">Only admins add or remove notification endpoints; ask an admin to add yours.</p> : null}
      {open ? <AddEndpointDialog projectId={projectId} onClose={() => setOpen(false)} /> : null}
      <ErrorBanner error={endpoints.error} title="Cannot list the notification endpoints" />
      {endpoints.isPending ? <SkeletonRows rows={2} label="Loading the notification endpoints" /> : null}
      {endpoints.data && rows.length === 0 ? (
        <EmptyState title="No notification endpoints yet" action={isAdmin ? addButton : undefined}>
          Add a URL (your service, or a Slack incoming webhook) to hear when an approval waits or is decided.
        </EmptyState>
      ) : null}
      {rows.length ? (
        <ul className="space-y-3">
          {rows.map((endpoint) => (
            <EndpointCard key={endpoint.id} endpoint={endpoint} isAdmin={isAdmin} />
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function EndpointCard({ endpoint, isAdmin }: { endpoint: NotificationEndpoint; isAdmin: boolean }) {
  const remove = useDeleteNotificationEndpoint();
  const test = useTestNotificationEndpoint();
  const userName = useUserName();
  const [confirm, setConfirm] = useState(false);
  const [show, setShow] = useState(false);
  return (
    <li data-endpoint-url={endpoint.url} className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 className="font-mono text-sm font-semibold break-all">{endpoint.url}</h2>
          <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-zinc-700 dark:text-zinc-300">
            <Badge tone="accent">{endpoint.format}</Badge>
            {endpoint.events.length ? endpoint.events.join(", ") : "every event"} · added by {userName(endpoint.createdBy)}, {formatTime(endpoint.createdAt)}
          </p>
        </div>
        <div className="flex shrink-0 gap-2">
          <Button size="sm" disabled={!isAdmin || test.isPending} onClick={() => test.mutate(endpoint.id)} aria-label={`Send a test to ${endpoint.url}`}>
            Send a test
          </Button>
          <Dialog open={confirm} onOpenChange={setConfirm}>
            <Button size="sm" disabled={!isAdmin} onClick={() => setConfirm(true)} aria-label={`Remove ${endpoint.url}`}>
              Remove
            </Button>
            <DialogContent title="Remove this endpoint?" description="Nothing more is sent to it, retries included.">
              <ErrorBanner error={remove.error} title="Cannot remove the endpoint" />
              <DialogFooter>
                <Button onClick={() => setConfirm(false)}>Keep it</Button>
                <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate(endpoint.id, { onSuccess: () => setConfirm(false) })}>
                  Remove endpoint
                </Button>
              </DialogFooter>
            </DialogContent>
          </Dialog>
        </div>
      </div>
      <ErrorBanner className="mt-2" error={test.error} title="Cannot send a test" />
      <details className="mt-3" onToggle={(e) => setShow(e.currentTarget.open)}>
        <summary className="cursor-pointer text-sm font-medium text-indigo-700 dark:text-indigo-300">Deliveries</summary>
        {show ? <DeliveryList endpoint={endpoint} /> : null}
      </details>
    </li>
  );
}

function DeliveryList({ endpoint }: { endpoint: NotificationEndpoint }) {
  const deliveries = useNotificationDeliveries(endpoint.id);
  const rows = deliveries.data?.data ?? [];
  return (
    <div className="mt-2">
      <ErrorBanner error={deliveries.error} title="Cannot list the deliveries" />
      {deliveries.isPending ? <SkeletonRows rows={2} label="Loading the deliveries" /> : null}
      {deliveries.data && rows.length === 0 ? <p className="text-sm text-zinc-600 dark:text-zinc-400">Nothing sent yet: send a test, or wait for the next approval.</p> : null}
      {rows.length ? (
        <SettingsTable caption={`Deliveries to ${endpoint.url}`} head={["Created", "Event", "Outcome", "Attempts · status codes", "Last error"]}>
          {rows.map((delivery) => (
            <tr key={delivery.id}>
              <td className={`${td} whitespace-nowrap text-xs`}>{formatTime(delivery.createdAt)}</td>
              <td className={`${td} font-mono text-xs`}>{delivery.type}</td>
              <td className={td}>
                {delivery.outcome === "delivered" ? <Badge tone="success">delivered</Badge> : delivery.outcome === "failed" ? <Badge tone="danger">failed</Badge> : <Badge tone="neutral">pending</Badge>}
                {delivery.outcome === "pending" && delivery.nextAttemptAt ? <div className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">next try {formatTime(delivery.nextAttemptAt)}</div> : null}
              </td>
              <td className={`${td} font-mono text-xs`}>
                {delivery.attempts} · {delivery.statusCodes.length ? delivery.statusCodes.map((code) => (code === 0 ? "no answer" : code)).join(", ") : "—"}
              </td>
              <td className={`${td} text-xs break-all`}>{delivery.lastError ?? "—"}</td>
            </tr>
          ))}
        </SettingsTable>
      ) : null}
    </div>
  );
}

function AddEndpointDialog({ projectId, onClose }: { projectId: string; onClose(): void }) {
  const create = useCreateNotificationEndpoint();
  const [url, setUrl] = useState("");
  const [format, setFormat] = useState("standard-webhooks");
  const [events, setEvents] = useState<NotificationEvent[]>([]);
  const issues = isApiError(create.error) ? create.error.issues : [];
  const secret = create.data?.secret;
  return (
    <Dialog open onOpenChange={(next) => (next ? null : onClose())}>
      {secret ? (
        <DialogContent title="Your new endpoint" description="Copy the signing secret now: it is shown only once. Verify each notification's webhook-signature with it.">
          <CopyField id="endpoint-secret" label="Signing secret" value={secret} />
          <DialogFooter>
            <Button variant="primary" onClick={onClose}>
              Done
            </Button>
          </DialogFooter>
        </DialogContent>
      ) : (
        <DialogContent title="Add a notification endpoint" description="Loopback and private addresses are refused unless the server allows them.">
          <form
            className="space-y-3"
            onSubmit={(e) => {
              e.preventDefault();
              create.mutate({ projectId, url: url.trim(), format, ...(events.length ? { events } : {}) });
            }}
          >
            <Field id="endpoint-url" label="URL" issues={issues} path="/url">
              {(props) => <Input {...props} type="url" className="font-mono" value={url} onChange={(e) => setUrl(e.target.value)} required maxLength={2048} autoFocus placeholder="https://hooks.example.com/kindgi" />}
            </Field>
            <Field id="endpoint-format" label="Format" hint={format === "slack" ? "A Slack-compatible {text, blocks} message, for an incoming-webhook URL." : "{type, timestamp, data: {…, link}} with Standard Webhooks headers."} issues={issues} path="/format">
              {(props) => (
                <Select {...props} value={format} onChange={(e) => setFormat(e.target.value)}>
                  <option value="standard-webhooks">Standard Webhooks (JSON)</option>
                  <option value="slack">Slack</option>
                </Select>
              )}
            </Field>
            <fieldset>
              <legend className="text-sm font-medium text-zinc-800 dark:text-zinc-200">Events</legend>
              <p className="text-xs text-zinc-600 dark:text-zinc-400">Check none to receive every event.</p>
              {EVENTS.map((event) => (
                <div key={event.value} className="mt-1 flex items-center gap-2">
                  <input id={`endpoint-event-${event.value}`} type="checkbox" className="h-4 w-4 rounded border-zinc-300 accent-indigo-600" checked={events.includes(event.value)} onChange={(e) => setEvents(e.target.checked ? [...events, event.value] : events.filter((v) => v !== event.value))} />
                  <label htmlFor={`endpoint-event-${event.value}`} className="text-sm">
                    {event.label} <span className="font-mono text-xs text-zinc-600 dark:text-zinc-400">{event.value}</span>
                  </label>
                </div>
              ))}
              <FieldError issues={issues} path="/events" />
            </fieldset>
            <ErrorBanner error={create.error} title="Cannot add the endpoint" />
            <DialogFooter>
              <Button onClick={onClose}>Cancel</Button>
              <Button type="submit" variant="primary" disabled={!url.trim() || create.isPending}>
                {create.isPending ? <Spinner /> : null}
                Add endpoint
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      )}
    </Dialog>
  );
}
