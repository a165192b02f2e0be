-- CreateTable
CREATE TABLE "Schedule" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "projectId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "agentVersion" TEXT,
    "userMessage" TEXT NOT NULL,
    "parameters" JSONB NOT NULL DEFAULT '{}',
    "toolsAllowedUnattended" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "status" TEXT NOT NULL,
    "nextFireAt" TIMESTAMPTZ(3),
    "createdBy" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Schedule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ScheduleFire" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "scheduleId" UUID NOT NULL,
    "tick" TIMESTAMPTZ(3) NOT NULL,
    "missed" BOOLEAN NOT NULL DEFAULT false,
    "outcome" TEXT NOT NULL,
    "runId" UUID,
    "error" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ScheduleFire_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Webhook" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "projectId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "agentVersion" TEXT,
    "userMessageTemplate" TEXT NOT NULL,
    "parameterMappings" JSONB NOT NULL DEFAULT '{}',
    "toolsAllowedUnattended" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "status" TEXT NOT NULL,
    "secretCiphertext" TEXT NOT NULL,
    "createdBy" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Webhook_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "webhookId" UUID NOT NULL,
    "messageId" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "runId" UUID,
    "error" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Connection" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "owner" TEXT NOT NULL,
    "userId" UUID,
    "app" TEXT NOT NULL,
    "name" TEXT,
    "permissions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "tokenCiphertext" TEXT NOT NULL,
    "createdBy" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Connection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NotificationEndpoint" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "projectId" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "events" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "secretCiphertext" TEXT NOT NULL,
    "createdBy" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "NotificationEndpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NotificationDelivery" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "projectId" UUID NOT NULL,
    "endpointId" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "statusCodes" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "lastError" TEXT,
    "nextAttemptAt" TIMESTAMPTZ(3),
    "deliveredAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "NotificationDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Schedule_status_nextFireAt_idx" ON "Schedule"("status", "nextFireAt");

-- CreateIndex
CREATE INDEX "Schedule_tenantId_createdAt_idx" ON "Schedule"("tenantId", "createdAt");

-- CreateIndex
CREATE INDEX "ScheduleFire_scheduleId_createdAt_idx" ON "ScheduleFire"("scheduleId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ScheduleFire_scheduleId_tick_key" ON "ScheduleFire"("scheduleId", "tick");

-- CreateIndex
CREATE INDEX "Webhook_tenantId_createdAt_idx" ON "Webhook"("tenantId", "createdAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_webhookId_createdAt_idx" ON "WebhookDelivery"("webhookId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_webhookId_messageId_key" ON "WebhookDelivery"("webhookId", "messageId");

-- CreateIndex
CREATE INDEX "Connection_tenantId_app_owner_idx" ON "Connection"("tenantId", "app", "owner");

-- CreateIndex
CREATE INDEX "NotificationEndpoint_tenantId_projectId_idx" ON "NotificationEndpoint"("tenantId", "projectId");

-- CreateIndex
CREATE INDEX "NotificationDelivery_status_nextAttemptAt_idx" ON "NotificationDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "NotificationDelivery_endpointId_createdAt_idx" ON "NotificationDelivery"("endpointId", "createdAt");
