/**
 * One timed Log.open: the open (recovery included) is the operation, the log is closed after the
 * clock stopped. Shared by the experiments that ask how long a log takes to serve again.
 */
import { type Measurement, type Repetition, measureSync } from '../../lab/index.js';
import { Log, type LogOptions, type RecoveryReport } from '../../storage/index.js';
import { assert } from '../../storage/testing/index.js';

export function timedLogOpen(
  measurement: Measurement,
  dir: string,
  options: LogOptions,
): { readonly repetition: Repetition; readonly report: RecoveryReport } {
  let opened: Log | null = null;
  const repetition = measureSync(
    measurement,
    () => {
      opened = Log.open(dir, options);
      return opened.recovery.scannedBytes;
    },
    { ops: 1 },
  );
  const log = opened as Log | null;
  assert(log !== null, 'the open ran');
  void log.close();
  return { repetition, report: log.recovery };
}
