/** Every `loglab` command, in the order `--help` lists them. */
import type { Command } from 'commander';

export type RegisterCommand = (program: Command) => void;

export const commands: readonly RegisterCommand[] = [];
