/** Every `loglab` command, in the order `--help` lists them. */
import type { Command } from 'commander';
import { registerAppendCommand } from './append.js';
import { registerReadCommand } from './read.js';
import { registerDumpCommand } from './dump.js';
import { registerReportCommand } from './report.js';

export type RegisterCommand = (program: Command) => void;

export const commands: readonly RegisterCommand[] = [
  registerAppendCommand,
  registerReadCommand,
  registerDumpCommand,
  registerReportCommand,
];
