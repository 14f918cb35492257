import { fork } from 'node:child_process';
import { EnvironmentError } from '../errors.js';
import type { ControlMessage, WorkerConfig } from '../worker/types.js';
import { workerEntry } from './worker-entry.js';
import type { WorkerLink, WorkerTransport } from './worker-transport.js';

/**
 * leaseproof's own Node.js worker (`worker/worker-main`), forked with an IPC channel. The
 * channel is set to JSON serialisation, not Node's structured clone: what crosses it is then
 * exactly the wire format a worker in another language must speak, and a message that is not
 * plain JSON fails here first. The worker exits when the channel closes (IPC 'disconnect').
 */
export const nodeIpcTransport: WorkerTransport = {
  name: 'node-ipc',
  start(config: WorkerConfig): WorkerLink {
    const { file, execArgv } = workerEntry(config.queue);
    const child = fork(file, [config.workerId], {
      execArgv,
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      serialization: 'json',
      detached: true,
    });
    const pid = child.pid;
    if (pid === undefined) {
      throw new EnvironmentError(`could not start worker ${config.workerId} (${file})`);
    }
    return {
      pid,
      get connected() {
        return child.connected;
      },
      send(message: ControlMessage) {
        child.send(message);
      },
      onMessage(listener) {
        child.on('message', listener);
      },
      onStderrLine(listener) {
        child.stderr?.on('data', (chunk: Buffer) => {
          for (const line of chunk.toString().split('\n')) if (line !== '') listener(line);
        });
      },
      onExit(listener) {
        child.once('exit', listener);
      },
    };
  },
};
