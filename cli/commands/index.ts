/** Every `loglab` command, in the order `--help` lists them. */
import type { Command } from 'commander';
import { registerAppendCommand } from './append.js';
import { registerBenchCommand } from './bench.js';
import { registerCiCommand } from './ci.js';
import { registerCompareCommand } from './compare.js';
import { registerDumpCommand } from './dump.js';
import { registerExportCommand } from './export.js';
import { registerHistoryCommand } from './history.js';
import { registerLabCommand } from './lab.js';
import { registerListCommand } from './list.js';
import { registerModelCommand } from './model.js';
import { registerPlanCommand } from './plan.js';
import { registerReadCommand } from './read.js';
import { registerReportCommand } from './report.js';
import { registerRunCommand } from './run.js';

export type RegisterCommand = (program: Command) => void;

export const commands: readonly RegisterCommand[] = [
  registerLabCommand,
  registerListCommand,
  registerRunCommand,
  registerReportCommand,
  registerModelCommand,
  registerPlanCommand,
  registerCompareCommand,
  registerCiCommand,
  registerHistoryCommand,
  registerExportCommand,
  registerBenchCommand,
  registerAppendCommand,
  registerReadCommand,
  registerDumpCommand,
];
