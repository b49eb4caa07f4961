/**
 * The one `loglab` program. Each command lives in its own file under lab/commands/ and registers
 * itself on the program; this file only wires them together and maps errors to exit codes.
 *
 * Exit codes: 0 success; 1 a check failed (corrupt data, a regression, a failed verify);
 * 2 unusable input (bad arguments, unreadable files); 3 an unexpected internal error.
 */
import { Command, CommanderError } from 'commander';
import { StorageError } from '../storage/errors.js';
import { LabError } from './errors.js';
import { commands } from './commands/index.js';

export const EXIT_OK = 0;
export const EXIT_CHECK_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERNAL = 3;

export function buildProgram(): Command {
  const program = new Command('loglab')
    .description('A storage performance laboratory: logs vs slots, measured on your own disk.')
    .showHelpAfterError(false)
    .exitOverride();
  for (const register of commands) register(program);
  return program;
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  if (error instanceof LabError) {
    return error.code === 'CHECK_FAILED' ? EXIT_CHECK_FAILED : EXIT_USAGE;
  }
  if (error instanceof StorageError) {
    const usage = error.code === 'INVALID_CONFIG' || error.code === 'OFFSET_OUT_OF_RANGE' || error.code === 'INVALID_SEGMENT_FILE';
    return usage ? EXIT_USAGE : EXIT_CHECK_FAILED;
  }
  return EXIT_INTERNAL;
}

export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return process.exitCode === undefined ? EXIT_OK : Number(process.exitCode);
  } catch (error) {
    const code = exitCodeFor(error);
    if (!(error instanceof CommanderError)) {
      const label = error instanceof StorageError || error instanceof LabError ? `${error.code}: ` : '';
      process.stderr.write(`loglab: ${label}${(error as Error).message}\n`);
      if (code === EXIT_INTERNAL) process.stderr.write(`${(error as Error).stack ?? ''}\n`);
    }
    return code;
  }
}
