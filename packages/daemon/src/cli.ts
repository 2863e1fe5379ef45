/** The bundled file's entry (scripts/bundle.mjs): runs main and exits with its code. */
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
