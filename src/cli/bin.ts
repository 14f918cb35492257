/** Process entry of the CLI (`bin/leaseproof.js` loads the compiled form of this file). */
import { main } from './main.js';

await main(process.argv);
