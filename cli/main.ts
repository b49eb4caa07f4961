/** Entry point of `loglab` and `npm run lab`. */
import { main } from './cli.js';

// `loglab dump … | head` closes the pipe early: the reader has what it wanted, so stop quietly
// instead of dying on an EPIPE stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await main(process.argv.slice(2));
