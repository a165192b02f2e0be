import { Suspense } from "react";
import { RunList } from "@/components/runs/run-list";
import { SkeletonRows } from "@/components/ui";

export const metadata = { title: "Runs · Kindgi Console" };

// /runs – the project's runs with filters and charts
export default function RunsPage() {
  return (
    <Suspense fallback={<SkeletonRows rows={6} label="Loading the runs" />}>
      <RunList />
    </Suspense>
  );
}
