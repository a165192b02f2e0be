-- CreateTable
CREATE TABLE "McpSession" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "callerId" TEXT NOT NULL,
    "server" TEXT NOT NULL,
    "protocolVersion" TEXT,
    "logLevel" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "McpSession_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "McpSession_expiresAt_idx" ON "McpSession"("expiresAt");
