"use client";

/** `/settings/members`: the tenant's people and their roles; admins invite (email and initial password), change roles, deactivate. */
import { useState } from "react";
import { Badge, Button, Dialog, DialogContent, DialogFooter, EmptyState, ErrorBanner, Field, Input, PageHeader, Select, SkeletonRows, Spinner } from "@/components/ui";
import { formatTime } from "@/components/runs/run-bits";
import { isApiError } from "@/lib/client/api";
import { useIdentity } from "@/lib/client/use-identity";
import { useInviteMember, useMembers, useSetMemberActive, useSetMemberRole, type Member } from "@/lib/client/use-settings";
import { SettingsTable, td } from "./settings-nav";

const ROLE_WORDS = { admin: "admin: everything, including members, secrets and providers", member: "member: registers and runs tools and agents", viewer: "viewer: reads only" };

export function MembersPage() {
  const identity = useIdentity();
  const members = useMembers();
  const [open, setOpen] = useState(false);
  const isAdmin = identity.data?.user.role === "admin";
  const rows = members.data ?? [];
  return (
    <div>
      <PageHeader
        title="Members and roles"
        description="The people who sign in to this tenant's console. Admins invite people, change their role and deactivate them; a deactivated member cannot sign in and their API keys are revoked."
        actions={
          isAdmin ? (
            <Button variant="primary" onClick={() => setOpen(true)}>
              Invite a member
            </Button>
          ) : null
        }
      />
      {identity.data && !isAdmin ? <p className="mb-3 rounded-md border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800">Only admins change members; ask an admin to invite someone or change a role.</p> : null}
      <InviteDialog open={open} onOpenChange={setOpen} />
      <ErrorBanner error={members.error} title="Cannot list the members" />
      {members.isPending ? <SkeletonRows rows={3} label="Loading the members" /> : null}
      {members.data && rows.length === 0 ? <EmptyState title="No members">Invite the first person with the button above.</EmptyState> : null}
      {rows.length ? (
        <SettingsTable caption="Members" head={["Person", "Role", "Status", "Since", ""]}>
          {rows.map((member) => (
            <MemberRow key={member.id} member={member} editable={isAdmin && member.id !== identity.data?.user.id} self={member.id === identity.data?.user.id} />
          ))}
        </SettingsTable>
      ) : null}
    </div>
  );
}

function MemberRow({ member, editable, self }: { member: Member; editable: boolean; self: boolean }) {
  const setRole = useSetMemberRole();
  const setActive = useSetMemberActive();
  return (
    <tr data-member={member.email}>
      <td className={td}>
        <span className="font-medium">{member.name}</span> {self ? <Badge tone="accent">you</Badge> : null}
        <div className="text-xs text-zinc-600 dark:text-zinc-400">{member.email}</div>
      </td>
      <td className={td}>
        {editable ? (
          <>
            <label htmlFor={`role-${member.id}`} className="sr-only">
              Role of {member.email}
            </label>
            <Select id={`role-${member.id}`} className="w-36" value={member.role} disabled={setRole.isPending} onChange={(e) => setRole.mutate({ id: member.id, role: e.target.value })}>
              <option value="admin">admin</option>
              <option value="member">member</option>
              <option value="viewer">viewer</option>
            </Select>
          </>
        ) : (
          member.role
        )}
        <ErrorBanner className="mt-1" error={setRole.error} title="Cannot change the role" />
      </td>
      <td className={td}>{member.status === "active" ? <Badge tone="success">active</Badge> : <Badge tone="neutral">deactivated</Badge>}</td>
      <td className={`${td} whitespace-nowrap`}>{formatTime(member.createdAt)}</td>
      <td className={`${td} text-right`}>
        {editable ? (
          <Button size="sm" variant={member.status === "active" ? "secondary" : "primary"} disabled={setActive.isPending} onClick={() => setActive.mutate({ id: member.id, active: member.status !== "active" })} aria-label={`${member.status === "active" ? "Deactivate" : "Reactivate"} ${member.email}`}>
            {member.status === "active" ? "Deactivate" : "Reactivate"}
          </Button>
        ) : null}
        <ErrorBanner className="mt-1 text-left" error={setActive.error} title="Cannot change the member" />
      </td>
    </tr>
  );
}

function InviteDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const invite = useInviteMember();
  const [form, setForm] = useState({ email: "", name: "", role: "member", password: "" });
  const issues = isApiError(invite.error) ? invite.error.issues : [];
  const close = (next: boolean) => {
    onOpenChange(next);
    if (!next) {
      invite.reset();
      setForm({ email: "", name: "", role: "member", password: "" });
    }
  };
  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent title="Invite a member" description="They sign in with this email and the initial password; tell it to them through a channel you trust.">
        <form
          className="space-y-3"
          onSubmit={(e) => {
            e.preventDefault();
            invite.mutate({ email: form.email.trim(), name: form.name.trim() || undefined, role: form.role, password: form.password }, { onSuccess: () => close(false) });
          }}
        >
          <Field id="invite-email" label="Email" issues={issues} path="/email">
            {(props) => <Input {...props} type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} required autoComplete="off" />}
          </Field>
          <Field id="invite-name" label="Name" hint="Optional; shown in the console." issues={issues} path="/name">
            {(props) => <Input {...props} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}
          </Field>
          <Field id="invite-role" label="Role" hint={ROLE_WORDS[form.role as keyof typeof ROLE_WORDS]} issues={issues} path="/role">
            {(props) => (
              <Select {...props} value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value })}>
                <option value="member">member</option>
                <option value="viewer">viewer</option>
                <option value="admin">admin</option>
              </Select>
            )}
          </Field>
          <Field id="invite-password" label="Initial password" hint="At least 12 characters." issues={issues} path="/password">
            {(props) => <Input {...props} type="text" className="font-mono" value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} required minLength={12} autoComplete="new-password" />}
          </Field>
          <ErrorBanner error={invite.error} title="Cannot invite the member" />
          <DialogFooter>
            <Button onClick={() => close(false)}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={invite.isPending}>
              {invite.isPending ? <Spinner /> : null}
              Invite
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
