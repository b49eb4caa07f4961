import { describe, expect, it } from 'vitest';
import { runCli } from '../test/fixtures/cli.js';

describe('loglab CLI (no experiments registered)', () => {
  it('prints help for the program and for each command', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/list.*\n[\s\S]*run[\s\S]*model/);
    for (const command of ['list', 'run', 'model']) {
      const commandHelp = await runCli([command, '--help']);
      expect(commandHelp.code).toBe(0);
      expect(commandHelp.stdout).toMatch(new RegExp(`Usage: loglab ${command}`));
    }
  });

  it('lists no experiments and says so', async () => {
    const list = await runCli(['list']);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(list.stdout).toMatch(/no experiments are registered/);
    const json = await runCli(['list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  it("prints the seed's arithmetic for every preset, or for the one asked for", async () => {
    const all = await runCli(['model']);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/Exos X20[\s\S]*990 PRO/);
    const exos = await runCli(['model', '--disk', 'exos-x20']);
    expect(exos.stdout).toMatch(/one turn .*8\.33 ms/);
    expect(exos.stdout).toMatch(/design A at QD16 .*275 messages a second/);
    expect(exos.stdout).not.toMatch(/990 PRO/);
    const ssd = await runCli(['model', '--disk', '990-pro']);
    expect(ssd.stdout).toMatch(/gap .*= 21 times/);
  });

  it('refuses run when no experiment is registered', async () => {
    const run = await runCli(['run', '--quick']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^loglab: UNKNOWN_EXPERIMENT: .*none is registered/);
  });

  it.each([
    [['model', '--disk', 'floppy'], /--disk <preset>.*'floppy'.*exos-x20, 990-pro/],
    [['run', '--seconds', '0'], /--seconds <n>.*'0'.*\(0, 86400\]/],
    [['run', '--seconds', 'abc'], /--seconds <n>.*'abc'.*\(0, 86400\]/],
    [['run', '--bogus'], /unknown option '--bogus'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('answers %j with one line naming the argument and exit code 2', async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });
});
