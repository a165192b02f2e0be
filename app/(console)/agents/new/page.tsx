import { AgentEditor } from "@/components/agents/agent-editor";

export const metadata = { title: "New agent · Kindgi Console" };

// /agents/new – define an agent and save its first version
export default function NewAgentPage() {
  return <AgentEditor agent={null} base={null} />;
}
