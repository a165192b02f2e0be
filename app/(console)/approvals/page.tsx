import { ApprovalInbox } from "@/components/approvals/approval-inbox";

export const metadata = { title: "Approvals · Kindgi Console" };

// /approvals – the approval inbox: pending tool calls, oldest first, live through the approval stream
export default function ApprovalsPage() {
  return <ApprovalInbox />;
}
