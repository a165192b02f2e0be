import { Suspense } from "react";
import { ToolPage } from "@/components/catalog/tool-page";
import { Skeleton } from "@/components/ui";

export async function generateMetadata({ params }: { params: Promise<{ toolId: string }> }) {
  const { toolId } = await params;
  return { title: `${decodeURIComponent(toolId)} · Catalog · Kindgi Console` };
}

// /tools/{toolId} – a tool's page: schemas, behaviour, versions and "try it"
export default async function ToolDetailPage({ params }: { params: Promise<{ toolId: string }> }) {
  const { toolId } = await params;
  return (
    <Suspense fallback={<Skeleton className="h-72" />}>
      <ToolPage toolId={decodeURIComponent(toolId)} />
    </Suspense>
  );
}
