/** Process entry of the CLI (`bin/leaseproof.js` loads the compiled form of this file). */
import { main } from './main.js';

// A reader that stops reading (`leaseproof list | head`) closes the pipe: what is left to print
// has nobody to read it, which is not an error of leaseproof's — without this, Node ends the
// process with an EPIPE stack trace. Any run under way still stops through its own shutdown.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

await main(process.argv);
