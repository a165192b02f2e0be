"use client";

/**
 * `/settings/schedules`: the project's schedules (cron in words, time zone, agent, next fire, state), a new schedule
 * (the cron described as it is typed; the API's issues at their fields), pause, resume, unregister, and each
 * schedule's fires with the run each started.
 */
import { useState } from "react";
import { ParameterForm, type ParameterValues } from "@/components/forms/parameter-form";
import { Button, Dialog, DialogContent, DialogFooter, EmptyState, ErrorBanner, Field, Input, PageHeader, Select, SkeletonRows, Spinner, Textarea } from "@/components/ui";
import { formatTime } from "@/components/runs/run-bits";
import { isApiError } from "@/lib/client/api";
import { useCurrentProject } from "@/lib/client/current-project";
import { browserTimeZone, cronInWords, timeZones } from "@/lib/client/cron-words";
import { useAgentVersionForm } from "@/lib/client/use-playground";
import { useIdentity } from "@/lib/client/use-identity";
import { useCreateSchedule, useScheduleAction, useScheduleFires, useSchedules, type Schedule } from "@/lib/client/use-schedules";
import { SettingsTable, td } from "./settings-nav";
import { AgentVersionPicker, issuesUnder, OutcomeBadge, roleNote, RunLink, TriggerStatusBadge, UnattendedToolsPicker, useChosenDefinition, useUserName } from "./trigger-bits";

export function SchedulesPage() {
  const { projectId } = useCurrentProject();
  const identity = useIdentity();
  const schedules = useSchedules(projectId);
  const [open, setOpen] = useState(false);
  const role = identity.data?.user.role;
  const canWrite = Boolean(role) && role !== "viewer";
  const note = roleNote(role, "schedules");
  const rows = schedules.data?.data ?? [];
  const newButton = (
    <Button variant="primary" disabled={!canWrite} onClick={() => setOpen(true)}>
      New schedule
    </Button>
  );
  return (
    <div>
      <PageHeader
        title="Schedules"
        description="A schedule starts a run of an agent at each tick of a cron pattern, in a time zone, as the person who created it, unattended: calls that need a person wait in Approvals unless the schedule allows the tool."
        actions={newButton}
      />
      {note ? <p className="mb-3 rounded-md border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800">{note}</p> : null}
      {open ? <CreateScheduleDialog projectId={projectId} isAdmin={role === "admin"} onClose={() => setOpen(false)} /> : null}
      <ErrorBanner error={schedules.error} title="Cannot list the schedules" />
      {schedules.isPending ? <SkeletonRows rows={3} label="Loading the schedules" /> : null}
      {schedules.data && rows.length === 0 ? (
        <EmptyState title="No schedules yet" action={canWrite ? newButton : undefined}>
          Create one to run an agent every weekday at nine, every hour, or every 30 seconds — or with <code className="font-mono">POST /v1/schedules</code>.
        </EmptyState>
      ) : null}
      {rows.length ? (
        <ul className="space-y-3">
          {rows.map((schedule) => (
            <ScheduleCard key={schedule.id} schedule={schedule} canWrite={canWrite} />
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function ScheduleCard({ schedule, canWrite }: { schedule: Schedule; canWrite: boolean }) {
  const action = useScheduleAction();
  const userName = useUserName();
  const [confirm, setConfirm] = useState(false);
  const [showFires, setShowFires] = useState(false);
  const words = cronInWords(schedule.cron);
  return (
    <li data-schedule={schedule.name} className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 className="flex items-center gap-2 text-base font-semibold break-words">
            {schedule.name} <TriggerStatusBadge status={schedule.status} />
          </h2>
          <p className="mt-1 text-sm">
            {words ?? "A cron pattern"} <span className="text-zinc-600 dark:text-zinc-400">({schedule.timezone})</span> · <code className="font-mono text-xs">{schedule.cron}</code>
          </p>
        </div>
        <div className="flex shrink-0 gap-2">
          {schedule.status === "active" ? (
            <Button size="sm" disabled={!canWrite || action.isPending} onClick={() => action.mutate({ id: schedule.id, action: "pause" })} aria-label={`Pause ${schedule.name}`}>
              Pause
            </Button>
          ) : (
            <Button size="sm" variant="primary" disabled={!canWrite || action.isPending} onClick={() => action.mutate({ id: schedule.id, action: "resume" })} aria-label={`Resume ${schedule.name}`}>
              Resume
            </Button>
          )}
          <Dialog open={confirm} onOpenChange={setConfirm}>
            <Button size="sm" disabled={!canWrite} onClick={() => setConfirm(true)} aria-label={`Unregister ${schedule.name}`}>
              Unregister
            </Button>
            <DialogContent title={`Unregister “${schedule.name}”?`} description="It never fires again and cannot be resumed. Its fires and their runs stay readable.">
              <ErrorBanner error={action.error} title="Cannot unregister the schedule" />
              <DialogFooter>
                <Button onClick={() => setConfirm(false)}>Keep it</Button>
                <Button variant="danger" disabled={action.isPending} onClick={() => action.mutate({ id: schedule.id, action: "unregister" }, { onSuccess: () => setConfirm(false) })}>
                  Unregister schedule
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
            {schedule.agent.id} @ {schedule.agent.version ?? "latest"}
          </dd>
        </div>
        <div>
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">Next fire</dt>
          <dd>{schedule.nextFireAt ? formatTime(schedule.nextFireAt) : schedule.status === "paused" ? "paused: none" : "none"}</dd>
        </div>
        <div>
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">Allowed unattended</dt>
          <dd className="font-mono text-xs break-all">{schedule.toolsAllowedUnattended.length ? schedule.toolsAllowedUnattended.join(", ") : "no tool"}</dd>
        </div>
        <div>
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">Created</dt>
          <dd className="text-xs">
            {userName(schedule.createdBy)}, {formatTime(schedule.createdAt)}
          </dd>
        </div>
      </dl>
      {action.error && !confirm ? <ErrorBanner className="mt-2" error={action.error} title="Cannot change the schedule" /> : null}
      <details className="mt-3" onToggle={(e) => setShowFires(e.currentTarget.open)}>
        <summary className="cursor-pointer text-sm font-medium text-indigo-700 dark:text-indigo-300">Fires</summary>
        {showFires ? <FireList schedule={schedule} /> : null}
      </details>
    </li>
  );
}

function FireList({ schedule }: { schedule: Schedule }) {
  const fires = useScheduleFires(schedule.id, { poll: schedule.status === "active" });
  const rows = fires.data?.data ?? [];
  return (
    <div className="mt-2">
      <ErrorBanner error={fires.error} title="Cannot list the fires" />
      {fires.isPending ? <SkeletonRows rows={2} label="Loading the fires" /> : null}
      {fires.data && rows.length === 0 ? <p className="text-sm text-zinc-600 dark:text-zinc-400">{schedule.status === "active" ? `No fire yet: the first is due ${schedule.nextFireAt ? formatTime(schedule.nextFireAt) : "soon"}.` : "No fire: the schedule is not active."}</p> : null}
      {rows.length ? (
        <SettingsTable caption={`Fires of ${schedule.name}`} head={["Tick", "Fired", "Outcome", "Run"]}>
          {rows.map((fire) => (
            <tr key={fire.id} data-fire-id={fire.id}>
              <td className={`${td} whitespace-nowrap`}>
                {formatTime(fire.tick)} {fire.missed ? <span className="text-xs text-amber-800 dark:text-amber-300">(missed, fired late)</span> : null}
              </td>
              <td className={`${td} whitespace-nowrap`}>{formatTime(fire.firedAt)}</td>
              <td className={td}>
                <OutcomeBadge outcome={fire.outcome} />
                {fire.error ? <div className="mt-1 text-xs text-red-700 dark:text-red-300">{fire.error.code}: {fire.error.message}</div> : null}
              </td>
              <td className={td}>
                <RunLink run={fire.run} />
              </td>
            </tr>
          ))}
        </SettingsTable>
      ) : null}
    </div>
  );
}

function CreateScheduleDialog({ projectId, isAdmin, onClose }: { projectId: string; isAdmin: boolean; onClose(): void }) {
  const create = useCreateSchedule();
  const [form, setForm] = useState(() => ({ name: "", cron: "0 9 * * 1-5", timezone: browserTimeZone(), agentId: "", version: "", userMessage: "" }));
  const [parameters, setParameters] = useState<ParameterValues>({});
  const [tools, setTools] = useState<string[]>([]);
  const [zones] = useState(() => timeZones(form.timezone));
  const chosen = useChosenDefinition(form.agentId, form.version);
  const parameterForm = useAgentVersionForm(form.agentId, chosen.resolvedVersion);
  const issues = isApiError(create.error) ? create.error.issues : [];
  const words = cronInWords(form.cron);
  const agentTools = (chosen.definition?.tools ?? []).map((tool) => tool.id);
  return (
    <Dialog open onOpenChange={(next) => (next ? null : onClose())}>
      <DialogContent className="w-[min(94vw,44rem)]" title="New schedule" description="Each tick starts a run as you, unattended. You can pause, resume or unregister it later.">
        <form
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate(
              {
                projectId,
                name: form.name.trim(),
                cron: form.cron.trim(),
                timezone: form.timezone,
                agent: { id: form.agentId, ...(form.version ? { version: form.version } : {}) },
                input: { userMessage: form.userMessage, parameters },
                ...(tools.length ? { toolsAllowedUnattended: tools } : {}),
              },
              { onSuccess: onClose },
            );
          }}
        >
          <Field id="schedule-name" label="Name" hint="What it does, e.g. “Morning digest”." issues={issues} path="/name">
            {(props) => <Input {...props} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required maxLength={200} autoFocus />}
          </Field>
          <div className="grid grid-cols-[minmax(0,1fr)_14rem] gap-3">
            <Field
              id="schedule-cron"
              label="Cron pattern"
              hint={<span aria-live="polite">{words ? `Runs: ${words}.` : "Five fields (minute hour day month weekday), or six with seconds first."}</span>}
              issues={issues}
              path="/cron"
            >
              {(props) => <Input {...props} className="font-mono" value={form.cron} onChange={(e) => setForm({ ...form, cron: e.target.value })} required maxLength={200} spellCheck={false} />}
            </Field>
            <Field id="schedule-timezone" label="Time zone" hint="The ticks are read in this zone." issues={issues} path="/timezone">
              {(props) => (
                <Select {...props} value={form.timezone} onChange={(e) => setForm({ ...form, timezone: e.target.value })}>
                  {zones.map((zone) => (
                    <option key={zone} value={zone}>
                      {zone}
                    </option>
                  ))}
                </Select>
              )}
            </Field>
          </div>
          <AgentVersionPicker
            projectId={projectId}
            idPrefix="schedule"
            agentId={form.agentId}
            version={form.version}
            issues={issues}
            onChange={(next) => {
              setForm({ ...form, agentId: next.agentId, version: next.version });
              setParameters({});
              setTools([]);
            }}
          />
          <Field id="schedule-message" label="User message" hint="What each run is asked." issues={issues} path="/input/userMessage">
            {(props) => <Textarea {...props} rows={3} value={form.userMessage} onChange={(e) => setForm({ ...form, userMessage: e.target.value })} maxLength={100_000} />}
          </Field>
          {form.agentId ? (
            <div>
              <h3 className="mb-2 text-sm font-medium text-zinc-800 dark:text-zinc-200">Parameters</h3>
              {parameterForm.isPending && chosen.resolvedVersion ? <SkeletonRows rows={2} label="Loading the parameter form" /> : null}
              <ErrorBanner error={parameterForm.error} title="Cannot load the parameter form" />
              {parameterForm.data ? <ParameterForm fields={parameterForm.data.fields} value={parameters} onChange={setParameters} idPrefix="schedule-param" issues={issuesUnder(issues, "/input/parameters", "/parameters")} legend="Parameters of the agent" /> : null}
            </div>
          ) : null}
          <UnattendedToolsPicker idPrefix="schedule" tools={agentTools} value={tools} onChange={setTools} isAdmin={isAdmin} issues={issues} />
          <ErrorBanner error={create.error} title="Cannot create the schedule" />
          <DialogFooter>
            <Button onClick={onClose}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={create.isPending || !form.name.trim() || !form.agentId}>
              {create.isPending ? <Spinner /> : null}
              Create schedule
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
