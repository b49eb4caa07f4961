/**
 * The one wall clock of the storage core. Time-index timestamps and due times of delayed
 * messages are stored wall-clock times by definition (they must mean the same after a restart),
 * so this is Date.now(); nothing here measures a duration — the lab times with hrtime.
 */
export function wallClockMs(): number {
  return Date.now();
}
