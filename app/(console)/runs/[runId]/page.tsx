import { RunPage } from "@/components/runs/run-page";

export async function generateMetadata({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  return { title: `Run ${runId.slice(0, 8)} · Runs · Kindgi Console` };
}

// /runs/{runId} – one run: timeline, steps, usage, versions, instructions, failure
export default async function RunDetailPage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  return <RunPage runId={runId} />;
}
