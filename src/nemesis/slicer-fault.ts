import { ToxicFault, type ToxicDirection } from './toxic-fault.js';

/** How the slicer cuts the byte stream. */
export interface SlicerOptions {
  /** Average size of a slice, in bytes. */
  averageSize: number;
  /** How much a slice's size varies around the average, in bytes (less than `averageSize`). */
  sizeVariation: number;
  /** Pause between slices, in milliseconds (fractions allowed: Toxiproxy counts microseconds). */
  delayMs: number;
}

/**
 * Cuts a worker's byte stream into small slices with a pause between them (Toxiproxy's `slicer`
 * toxic): protocol messages arrive in pieces, as over a lossy or congested link, which exercises
 * the client's partial-read paths and slows large results.
 */
export class SlicerFault extends ToxicFault {
  constructor(worker: string, options: SlicerOptions, direction: ToxicDirection = 'downstream') {
    super(
      'slicer',
      worker,
      'slicer',
      {
        average_size: options.averageSize,
        size_variation: options.sizeVariation,
        delay: Math.round(options.delayMs * 1000),
      },
      direction,
      { ...options },
    );
  }
}
