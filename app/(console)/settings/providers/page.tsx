import { ProvidersPage } from "@/components/settings/providers";

export const metadata = { title: "Model providers · Settings · Kindgi Console" };

// /settings/providers
export default function Page() {
  return <ProvidersPage />;
}
