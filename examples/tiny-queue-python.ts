/**
 * The adapter file for the Python tiny queue (`tiny_queue.py`): leaseproof starts the script in
 * its own Python environment and drives it through the primitives protocol. Copy both files into
 * your project and run `npx leaseproof suite --queue ./tiny-queue-python.ts`.
 */
import { fileURLToPath } from 'node:url';
import { pythonQueue } from 'leaseproof';

export default pythonQueue(fileURLToPath(new URL('./tiny_queue.py', import.meta.url)));
