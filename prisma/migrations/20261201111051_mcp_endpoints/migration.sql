-- CreateTable
CREATE TABLE "McpEndpoint" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "projectId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "headers" JSONB NOT NULL DEFAULT '{}',
    "status" TEXT NOT NULL,
    "lastError" TEXT,
    "serverName" TEXT,
    "serverVersion" TEXT,
    "tools" JSONB NOT NULL DEFAULT '[]',
    "lastRefreshAt" TIMESTAMPTZ(3),
    "unregisteredAt" TIMESTAMPTZ(3),
    "createdBy" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "McpEndpoint_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "McpEndpoint_tenantId_projectId_idx" ON "McpEndpoint"("tenantId", "projectId");

-- CreateIndex
CREATE UNIQUE INDEX "McpEndpoint_tenantId_name_key" ON "McpEndpoint"("tenantId", "name");
