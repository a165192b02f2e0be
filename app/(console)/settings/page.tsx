import { redirect } from "next/navigation";

// /settings – the first section
export default function SettingsIndex() {
  redirect("/settings/api-keys");
}
