/**
 * Lab-side errors with a stable code. The CLI maps them to exit codes (see lab/cli.ts):
 * usage mistakes exit 2, failed checks exit 1.
 */
export type LabErrorCode =
  | 'BAD_ARGUMENT'
  | 'NOT_ENOUGH_SPACE'
  | 'UNKNOWN_EXPERIMENT'
  | 'INVALID_RESULTS'
  | 'CHECK_FAILED';

export class LabError extends Error {
  readonly code: LabErrorCode;

  constructor(code: LabErrorCode, message: string) {
    super(message);
    this.name = 'LabError';
    this.code = code;
  }
}

export function badArgument(argument: string, accepted: string, got: string): LabError {
  return new LabError('BAD_ARGUMENT', `${argument}: expected ${accepted}, got '${got}'`);
}
