/**
 * `Request` and `Response` are one protobuf oneof each: the message is a single length-delimited field whose
 * number names the method. A table from method to its field number and payload codec encodes and decodes
 * both directions.
 */
import { ProtoReader, ProtoWriter } from '../../primitives/protobuf.js'

/** The field number of one oneof case and the codec of its payload message. */
export interface CaseCodec<T> {
  field: number
  encode(value: T): Uint8Array
  decode(body: Uint8Array): T
}

/** One codec per method of a payload map. */
export type OneofTable<P> = { [M in keyof P]: CaseCodec<P[M]> }

/** A tagged value of a payload map. */
export type OneofValue<P> = { [M in keyof P]: { method: M; value: P[M] } }[keyof P]

/** Encodes and decodes one oneof message from its table. */
export class OneofCodec<P> {
  private readonly methodByField: Map<number, keyof P>

  /** `name` is the message's name in errors. */
  constructor(
    private readonly name: string,
    private readonly table: OneofTable<P>,
  ) {
    const entries = Object.entries(table) as [keyof P, CaseCodec<unknown>][]
    this.methodByField = new Map(entries.map(([method, codec]) => [codec.field, method]))
  }

  encode(message: OneofValue<P>): Uint8Array {
    const codec = this.table[message.method] as CaseCodec<unknown>
    return new ProtoWriter().message(codec.field, codec.encode(message.value)).finish()
  }

  /** Decodes the case set last (protobuf's rule for a oneof seen twice); unknown cases are skipped. */
  decode(body: Uint8Array): OneofValue<P> {
    let out: OneofValue<P> | undefined
    const r = new ProtoReader(body)
    while (r.next()) {
      const method = this.methodByField.get(r.field)
      if (method === undefined) {
        r.skip()
        continue
      }
      out = { method, value: this.table[method].decode(r.bytes()) } as OneofValue<P>
    }
    if (out === undefined) throw new Error(`ABCI: ${this.name} without a known method`)
    return out
  }
}
