/** Errors of the report writer, with a stable code a caller (the CLI) can map to an exit code. */
export type ReportErrorCode = 'NO_VALID_RESULTS' | 'CHART_FAILED';

export class ReportError extends Error {
  readonly code: ReportErrorCode;

  constructor(code: ReportErrorCode, message: string) {
    super(`reports: ${message}`);
    this.name = 'ReportError';
    this.code = code;
  }
}
