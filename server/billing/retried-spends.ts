// A charge run again because the COMMIT of its batch went out and no answer came back (the
// connection lost, or silent): pipelined-batches.ts runs it again, and this decides what its caller
// is answered. A plain function, in the mutation set.

/** What a spend's answer (spends.ts SpendResult) holds that matters here: the spend's id, when it has one. */
type SpendAnswer = { ok: true; spendId: string } | { ok: false };

const spendIdOf = (result: SpendAnswer) => (result.ok ? result.spendId : undefined);

/**
 * When the try again finds the very spend the first try decided (the same id: a spend the try
 * again makes has an id of its own), that COMMIT went through, and the answer is the first try's:
 * a charge made then, not a replay, with the alerts it set off (low balance, a member's cap, auto
 * top-up). Otherwise the try again's: the first try kept nothing, or was a refusal.
 */
export function settleRetriedSpend<R extends SpendAnswer>(first: R, again: R): R {
  const spendId = spendIdOf(first);
  return spendId !== undefined && spendIdOf(again) === spendId ? first : again;
}
