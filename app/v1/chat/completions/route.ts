import { route } from "@/lib/api/route";
import { createChatCompletionOperation } from "@/lib/api/operations/openai";
import { createChatCompletion, type ChatCompletionBody } from "@/lib/doors/openai/chat-completions";

export const dynamic = "force-dynamic";

// POST /v1/chat/completions – an agent's turn as an OpenAI chat completion (streamed with `stream: true`)
export const POST = route(createChatCompletionOperation, async ({ actor, request, body }) => createChatCompletion(actor, request, body as unknown as ChatCompletionBody));
