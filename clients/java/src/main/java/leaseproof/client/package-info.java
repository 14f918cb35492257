/**
 * The program side of leaseproof's worker wire format over JSON lines
 * (docs/worker-wire-format.md, "Over JSON lines"): what a Java program needs to run a queue
 * library's own worker loop as a leaseproof native worker. A target implements {@link
 * leaseproof.client.Target}; its main calls {@link leaseproof.client.NativeRunner#runNative}.
 * The database audit stays the ground truth: what this package reports is the handler's word
 * (claims seen, units, effects), as leaseproof's own worker reports it.
 */
package leaseproof.client;
