// node-postgres's own value serializer, which its typings do not declare: the simulation writes
// parameters in as literals exactly as node-postgres would send them (inline-params.ts).
declare module 'pg/lib/utils.js' {
  const utils: {
    /** A parameter as node-postgres sends it: text, a Buffer, or null. */
    prepareValue(value: unknown): string | Buffer | null;
  };
  export default utils;
}
