import { errorResponse, requestIdOf } from "@/lib/api/route";
import { AppError } from "@/lib/errors";

export const dynamic = "force-dynamic";

// Any other /v1 path: the error envelope, never Next's HTML page.
function unknownRoute(request: Request): Response {
  return errorResponse(new AppError("not-found", `no route ${request.method} ${new URL(request.url).pathname}`), requestIdOf(request));
}

export { unknownRoute as GET, unknownRoute as POST, unknownRoute as PUT, unknownRoute as PATCH, unknownRoute as DELETE };
