/**
 * The shape the in-process rows of bench/kernel-turns.ts drive: our kernel's bench harness (row b, from
 * `@/lib/services/kernel-bench-harness`) and the peer libraries' (rows c, g, d: bench/peer/*.mts).
 * One `runTurn` is one whole turn of the clock agent: model call → `current-time {timezone}` → model call → answer.
 * It rejects when the turn did not complete; a resolved object with a `status` other than "completed" is a failure too.
 */
export type TurnHarness = {
  runTurn(userMessage: string): Promise<unknown>;
  close(): Promise<void>;
};
