import { ApprovalPage } from "@/components/approvals/approval-page";

export async function generateMetadata({ params }: { params: Promise<{ approvalId: string }> }) {
  const { approvalId } = await params;
  return { title: `Approval ${approvalId.slice(0, 8)} · Approvals · Kindgi Console` };
}

// /approvals/{approvalId} – one approval and its actions (the link notifications carry), usable on a phone
export default async function ApprovalDetailPage({ params }: { params: Promise<{ approvalId: string }> }) {
  const { approvalId } = await params;
  return <ApprovalPage approvalId={approvalId} />;
}
