/**
 * A handler result that is already serialized JSON: the dispatcher splices `text` into the response
 * instead of calling JSON.stringify (for large results whose parts are rendered once and memoised,
 * such as eth_getLogs). Only a top-level result may be raw.
 */
export class RawJson {
  constructor(readonly text: string) {}

  /** A JSON array of already serialized elements. */
  static array(elements: readonly string[]): RawJson {
    return new RawJson('[' + elements.join(',') + ']')
  }
}
