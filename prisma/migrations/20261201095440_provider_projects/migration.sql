-- AlterTable
ALTER TABLE "TenantModelProvider" ADD COLUMN     "projectIds" UUID[] DEFAULT ARRAY[]::UUID[];
