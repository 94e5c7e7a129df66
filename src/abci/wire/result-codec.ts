/**
 * What the application answers about transactions and validators: `Event{type=1, attributes=2}` with
 * `EventAttribute{key=1, value=2, index=3}`; `ExecTxResult`, whose fields `ResponseCheckTx` shares
 * (code=1, data=2, log=3, info=4, gas_wanted=5, gas_used=6, events=7, codespace=8);
 * `ValidatorUpdate{pub_key=1 (PublicKey oneof ed25519=1 | secp256k1=2), power=2}`; and
 * `ProofOps{ops=1}` with `ProofOp{type=1, key=2, data=3}`.
 */
import { ProtoReader, ProtoWriter } from '../../primitives/protobuf.js'
import type { CheckTxResponse, ProofOp } from '../application.js'
import type { AbciEvent, ExecTxResult, ValidatorUpdate } from '../types.js'

export function encodeEvent(e: AbciEvent): Uint8Array {
  const w = new ProtoWriter().string(1, e.type)
  for (const a of e.attributes) {
    w.message(
      2,
      new ProtoWriter()
        .string(1, a.key)
        .string(2, a.value)
        .uint(3, a.index ? 1 : 0)
        .finish(),
    )
  }
  return w.finish()
}

export function decodeEvent(body: Uint8Array): AbciEvent {
  const e: AbciEvent = { type: '', attributes: [] }
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) e.type = r.string()
    else if (r.field === 2) e.attributes.push(decodeEventAttribute(r.bytes()))
    else r.skip()
  }
  return e
}

function decodeEventAttribute(body: Uint8Array): AbciEvent['attributes'][number] {
  const a = { key: '', value: '', index: false }
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) a.key = r.string()
    else if (r.field === 2) a.value = r.string()
    else if (r.field === 3) a.index = r.uint64() !== 0n
    else r.skip()
  }
  return a
}

/** An `ExecTxResult`, or a `ResponseCheckTx` (the same fields at the same numbers). */
export function encodeTxResult(t: ExecTxResult | CheckTxResponse): Uint8Array {
  const w = new ProtoWriter()
    .uint(1, t.code)
    .bytes(2, t.data)
    .string(3, t.log)
    .string(4, t.info ?? '')
    .int(5, t.gasWanted)
    .int(6, t.gasUsed)
  for (const e of t.events) w.message(7, encodeEvent(e))
  return w.string(8, t.codespace).finish()
}

export function decodeTxResult(body: Uint8Array): ExecTxResult {
  const t: ExecTxResult = {
    code: 0,
    data: new Uint8Array(),
    log: '',
    info: '',
    gasWanted: 0n,
    gasUsed: 0n,
    events: [],
    codespace: '',
  }
  const r = new ProtoReader(body)
  while (r.next()) {
    switch (r.field) {
      case 1:
        t.code = r.uint32()
        break
      case 2:
        t.data = r.bytes()
        break
      case 3:
        t.log = r.string()
        break
      case 4:
        t.info = r.string()
        break
      case 5:
        t.gasWanted = r.int64()
        break
      case 6:
        t.gasUsed = r.int64()
        break
      case 7:
        t.events.push(decodeEvent(r.bytes()))
        break
      case 8:
        t.codespace = r.string()
        break
      default:
        r.skip()
    }
  }
  return t
}

/** Our validators hold ed25519 keys only (the key type CometBFT's default consensus params allow). */
export function encodeValidatorUpdate(v: ValidatorUpdate): Uint8Array {
  return new ProtoWriter().message(1, new ProtoWriter().lenDelimited(1, v.pubKey).finish()).int(2, v.power).finish()
}

export function decodeValidatorUpdate(body: Uint8Array): ValidatorUpdate {
  const v: ValidatorUpdate = { pubKey: new Uint8Array(), power: 0n }
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) v.pubKey = decodeEd25519PublicKey(r.bytes())
    else if (r.field === 2) v.power = r.int64()
    else r.skip()
  }
  return v
}

function decodeEd25519PublicKey(body: Uint8Array): Uint8Array {
  let key: Uint8Array | undefined
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) key = r.bytes()
    else if (r.field === 2) throw new Error('ABCI: secp256k1 validator keys are not supported, only ed25519')
    else r.skip()
  }
  if (key === undefined) throw new Error('ABCI: validator update without an ed25519 public key')
  return key
}

export function encodeProofOps(ops: readonly ProofOp[]): Uint8Array {
  const w = new ProtoWriter()
  for (const op of ops) w.message(1, new ProtoWriter().string(1, op.type).bytes(2, op.key).bytes(3, op.data).finish())
  return w.finish()
}

export function decodeProofOps(body: Uint8Array): ProofOp[] {
  const ops: ProofOp[] = []
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) ops.push(decodeProofOp(r.bytes()))
    else r.skip()
  }
  return ops
}

function decodeProofOp(body: Uint8Array): ProofOp {
  const op: ProofOp = { type: '', key: new Uint8Array(), data: new Uint8Array() }
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) op.type = r.string()
    else if (r.field === 2) op.key = r.bytes()
    else if (r.field === 3) op.data = r.bytes()
    else r.skip()
  }
  return op
}
