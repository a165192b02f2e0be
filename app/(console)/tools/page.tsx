import { Suspense } from "react";
import { CatalogPage } from "@/components/catalog/catalog-page";
import { SkeletonRows } from "@/components/ui";

export const metadata = { title: "Catalog · Kindgi Console" };

// /tools – every tool of the project, searched and filtered
export default function ToolsPage() {
  return (
    <Suspense fallback={<SkeletonRows rows={8} label="Loading tools" />}>
      <CatalogPage />
    </Suspense>
  );
}
