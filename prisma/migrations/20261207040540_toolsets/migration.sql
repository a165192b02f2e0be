-- Toolsets (POST /v1/toolsets): chosen tools and agents of a project by id and semver range, served as an MCP server
-- at /v1/mcp/toolsets/{id}. The references are JSON text, resolved when read; a name is unique in its project.
-- CreateTable
CREATE TABLE "Toolset" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "projectId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "tools" TEXT NOT NULL DEFAULT '[]',
    "agents" TEXT NOT NULL DEFAULT '[]',
    "createdBy" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Toolset_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Toolset_tenantId_createdAt_idx" ON "Toolset"("tenantId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Toolset_projectId_name_key" ON "Toolset"("projectId", "name");
