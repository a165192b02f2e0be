-- A journal event is identified by its run and its number: (runId, seq) becomes the primary key, the surrogate id
-- and its index go, and so does the foreign key to Run (runs are never deleted; the kernel writes an event only in
-- the statement that updates its run under the lease, so an event without its run cannot be written).
-- DropForeignKey
ALTER TABLE "RunEvent" DROP CONSTRAINT "RunEvent_runId_fkey";

-- DropIndex
DROP INDEX "RunEvent_runId_seq_key";

-- AlterTable
ALTER TABLE "RunEvent" DROP CONSTRAINT "RunEvent_pkey",
DROP COLUMN "id",
ADD CONSTRAINT "RunEvent_pkey" PRIMARY KEY ("runId", "seq");
