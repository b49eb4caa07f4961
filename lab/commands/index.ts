/** Every `loglab` command, in the order `--help` lists them. */
import type { Command } from 'commander';
import { registerReportCommand } from './report.js';

export type RegisterCommand = (program: Command) => void;

export const commands: readonly RegisterCommand[] = [
  registerReportCommand,
];
