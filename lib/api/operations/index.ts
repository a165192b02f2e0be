import type { Operation } from "@/lib/api/operation";
import * as agents from "@/lib/api/operations/agents";
import * as identity from "@/lib/api/operations/identity";
import * as secrets from "@/lib/api/operations/secrets";
import * as system from "@/lib/api/operations/system";
import * as tools from "@/lib/api/operations/tools";

/** Every operation the server serves: the OpenAPI document is generated from this list. */
export const allOperations: Operation[] = [system, identity, tools, agents, secrets].flatMap((group) => Object.values(group) as Operation[]).filter((value) => typeof value === "object" && "operationId" in value);
