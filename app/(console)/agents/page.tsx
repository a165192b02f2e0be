import { AgentList } from "@/components/agents/agent-list";

export const metadata = { title: "Agents · Kindgi Console" };

// /agents – the project's agents
export default function AgentsPage() {
  return <AgentList />;
}
