/** Entry point of `loglab` and `npm run lab`. */
import { main } from './cli.js';

process.exitCode = await main(process.argv.slice(2));
