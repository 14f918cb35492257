import { describeExploreFinds } from './explore-finds.js';

// A heartbeat on the event loop; no watchdog to abort a handler whose lease is gone.
describeExploreFinds([
  ['main-thread-heartbeat', 8019, 'explained-expiry'],
  ['no-watchdog', 3751, 'bounded-zombie'],
]);
