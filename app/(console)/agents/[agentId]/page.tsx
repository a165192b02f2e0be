import { ExistingAgentEditor } from "@/components/agents/agent-editor";

export async function generateMetadata({ params }: { params: Promise<{ agentId: string }> }) {
  const { agentId } = await params;
  return { title: `${decodeURIComponent(agentId)} · Agents · Kindgi Console` };
}

// /agents/{agentId} – edit an agent (from its latest version), its versions and their diff
export default async function AgentPage({ params }: { params: Promise<{ agentId: string }> }) {
  const { agentId } = await params;
  return <ExistingAgentEditor agentId={decodeURIComponent(agentId)} />;
}
