import { Suspense } from "react";
import { Playground } from "@/components/playground/playground";
import { SkeletonRows } from "@/components/ui";

export const metadata = { title: "Playground · Kindgi Console" };

// /playground – talk to an agent version (?agent=&version=&conversation=)
export default function PlaygroundPage() {
  return (
    <Suspense fallback={<SkeletonRows rows={4} label="Loading the playground" />}>
      <Playground />
    </Suspense>
  );
}
