-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "origin" JSONB,
ADD COLUMN     "toolsAllowedUnattended" TEXT[] DEFAULT ARRAY[]::TEXT[];
