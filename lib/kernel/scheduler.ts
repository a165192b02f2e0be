/**
 * Tool-call scheduling within one model step (Tool schema 1.3.0, `mutating`): calls to read-only tools that the
 * step asks for one after another run at the same time, at most 8 at once; a call to a mutating tool runs on its
 * own, and so does a read-only call that may wait (it pauses, declares connections, or may have to ask for an
 * approval). With the agent's `parallelToolCalls: false` every call runs on its own. Results keep the order of the
 * calls. The model's order holds: a call never starts before every call listed before it has finished, and a call
 * that waits stops the step — no later call starts until it is resolved (a later advance runs them).
 */
export const MAX_CONCURRENT_CALLS = 8;

export type SchedulableCall = {
  /** `mutating` of the tool; absent in a manifest means true. */
  mutating: boolean;
  pauses?: boolean;
  declaresConnections?: boolean;
  /** The call may have to wait for an approval (a mutating tool, or a read-only one an unattended run asks for). */
  mayAsk?: boolean;
};

/** A call that may share its slot with neighbouring calls of the same kind. */
export function runsConcurrently(call: SchedulableCall): boolean {
  return !call.mutating && !call.pauses && !call.declaresConnections && !call.mayAsk;
}

/** Splits the calls, in order, into groups: a run of concurrent calls, or one call alone. */
export function planGroups<C extends SchedulableCall>(calls: readonly C[], options: { parallelToolCalls: boolean }): C[][] {
  const groups: C[][] = [];
  for (const call of calls) {
    const last = groups[groups.length - 1];
    if (options.parallelToolCalls && runsConcurrently(call) && last && runsConcurrently(last[0])) last.push(call);
    else groups.push([call]);
  }
  return groups;
}

/**
 * Runs `work` over `items` with at most `limit` at once; results in the items' order. After a throw no further item
 * starts; the ones already started settle, then the first error is thrown.
 */
async function pool<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (next < items.length && !failure) {
      const index = next++;
      try {
        results[index] = await work(items[index], index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw (failure as { error: unknown }).error;
  return results;
}

/**
 * Executes the calls of one model step by the scheduling rule, group after group. `execute` must not throw for a
 * tool failure (it returns the failure as a result); a throw aborts the step after the calls already started settle.
 * When a group's result says `waits` (the call now waits for a person or an answer), no later group starts: the
 * results so far are returned.
 */
export async function runToolCalls<C extends SchedulableCall, R>(
  calls: readonly C[],
  options: { parallelToolCalls: boolean; waits?: (result: R) => boolean },
  execute: (call: C) => Promise<R>,
  beforeGroup?: (group: readonly C[]) => Promise<void>,
): Promise<R[]> {
  const results: R[] = [];
  for (const group of planGroups(calls, options)) {
    // E.g. the starts of a group's calls journaled in one commit, before any of them is invoked.
    if (beforeGroup && group.length > 1) await beforeGroup(group);
    const settled = await pool(group, MAX_CONCURRENT_CALLS, (call) => execute(call));
    results.push(...settled);
    if (options.waits && settled.some(options.waits)) break;
  }
  return results;
}
