import { describeExploreFinds } from './explore-finds.js';

// Acks without checking the claim; deadlines from the worker's own clock.
describeExploreFinds([
  ['unconditional-ack', 120, 'no-stale-ack'],
  ['worker-clock-lease', 68, 'lease-honored'],
]);
