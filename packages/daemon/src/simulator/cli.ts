/** `npm run simulate` runs this: the simulator's command line (main.ts) and its exit code. */
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
