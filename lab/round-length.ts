/**
 * How long a measured round of a synced phase lasts at least, and its warm-up. A module of its
 * own, importing nothing: experiments read these through lab/index.ts without loading the
 * harness (and the probes it imports) at import time.
 */

/**
 * The shortest measured round of a synced phase at the default budgets: at 83 ms a round of
 * synced sends varied 83–86% from run to run (issue 15); half a second holds hundreds of syncs
 * even on a spinning disk.
 */
export const SYNCED_ROUND_MIN_SECONDS = 0.5;
/** A warm-up before synced rounds lasts this share of a round. */
export const WARM_UP_SHARE_OF_ROUND = 0.2;
