import { AuditLogPage } from "@/components/settings/audit-log";

export const metadata = { title: "Audit log · Settings · Kindgi Console" };

// /settings/audit-log
export default function Page() {
  return <AuditLogPage />;
}
