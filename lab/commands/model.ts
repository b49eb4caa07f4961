/** `loglab model`: the seed's arithmetic, computed line by line from a disk model. */
import { type Command, Option } from 'commander';
import { DISK_PRESETS, type DiskModel } from '../models.js';
import { hddSeedLines, ssdSeedLines } from '../seed-arithmetic.js';

function linesFor(model: DiskModel): string[] {
  const lines = model.kind === 'hdd' ? hddSeedLines(model) : ssdSeedLines(model);
  return [...lines, ...model.sources.map((source) => `  source: ${source}`)];
}

export function registerModelCommand(program: Command): void {
  program
    .command('model')
    .description("print the seed's arithmetic for a modelled disk (all presets by default)")
    .addOption(new Option('--disk <preset>', 'the disk model').choices(Object.keys(DISK_PRESETS)))
    .action((options: { disk?: string }) => {
      const models = options.disk === undefined
        ? Object.values(DISK_PRESETS)
        : Object.values(DISK_PRESETS).filter((model) => model.id === options.disk);
      const blocks = models.map((model) => linesFor(model).join('\n'));
      process.stdout.write(`${blocks.join('\n\n')}\n`);
    });
}
