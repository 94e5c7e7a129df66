/**
 * FilePV: the validator's signer (CometBFT `privval/file.go`). The key is `config/priv_validator_key.json`
 * (keystore/validator-key.ts); the last signed height/round/step, signature and sign bytes are kept in
 * `data/priv_validator_state.json`, written and fsynced BEFORE a signature is returned, so a restarted node
 * can never sign two different things for one step. Asked again for the same step with only the timestamp
 * changed, it returns the earlier signature and timestamp, as CometBFT does.
 */
import { mkdir, readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { ProtoReader } from '../comet/proto.js'
import { proposalSignBytes, voteSignBytes } from '../comet/sign-bytes.js'
import { SignedMsgType, type Proposal, type Vote } from '../comet/types.js'
import { ed25519Sign } from '../crypto/index.js'
import { loadValidatorKey, type ValidatorKey } from '../keystore/validator-key.js'
import { base64ToBytes, bytesToBase64, bytesToUpperHex, equalBytes, hexToBytes } from '../primitives/hex.js'
import { writeFileAtomic } from '../utils/files.js'
import type { Timestamp } from '../utils/time.js'

/** The step numbers of the state file: 0 none, 1 propose, 2 prevote, 3 precommit. */
export const SignStep = { None: 0, Propose: 1, Prevote: 2, Precommit: 3 } as const
export type SignStep = (typeof SignStep)[keyof typeof SignStep]

export interface LastSignState {
  height: number
  round: number
  step: SignStep
  signature?: Uint8Array
  signBytes?: Uint8Array
}

/** A request that would sign something conflicting with an earlier signature. */
export class DoubleSignError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'DoubleSignError'
  }
}

/** What consensus needs from a signer (FilePV here; a remote signer could implement it later). */
export interface PrivValidator {
  readonly address: Uint8Array
  readonly pubKey: Uint8Array
  /** Returns the signed vote; its timestamp may be the one signed earlier for the same step. */
  signVote(chainId: string, vote: Vote): Promise<Vote>
  signProposal(chainId: string, proposal: Proposal): Promise<Proposal>
  /**
   * Runs `signing` with the state file written once at its end instead of after each signature: a dev
   * chain's run of heights (mining-control.ts), whose signatures nobody sees before the run is over.
   */
  deferStateWrites?<T>(signing: () => Promise<T>): Promise<T>
  /** A dev chain's revert to `height` (docs/dev-chain.md): the next signature may be for `height + 1` again. */
  rewindTo?(height: number): Promise<void>
}

/**
 * Writes the state file so that a crash leaves the old or the new one (default: `writeFileAtomic`, temp
 * file + fsync + rename + folder fsync). Injectable so tests can make it fail as a full descriptor table
 * (EMFILE) or a full disk would.
 */
export type SignStateWriter = (path: string, text: string, mode: number) => Promise<void>

export interface FilePVOptions {
  /** How the state file is written (default `writeFileAtomic`). */
  writeState?: SignStateWriter
}

/** Field number of `timestamp` in CanonicalVote (5) and CanonicalProposal (6). */
const CANONICAL_VOTE_TIME_FIELD = 5
const CANONICAL_PROPOSAL_TIME_FIELD = 6

export class FilePV implements PrivValidator {
  private lss: LastSignState
  private lock: Promise<unknown> = Promise.resolve()
  /** The state file's folder was created (once per process, not per signature). */
  private dirReady = false
  /** Inside `deferStateWrites`: signatures update the state in memory only. */
  private deferring = false
  private readonly writeState: SignStateWriter

  constructor(
    readonly key: ValidatorKey,
    readonly statePath: string,
    state?: LastSignState,
    options: FilePVOptions = {},
  ) {
    this.lss = state ?? { height: 0, round: 0, step: SignStep.None }
    this.writeState = options.writeState ?? writeFileAtomic
  }

  /** Loads the key file and the state file; a missing state file is created as `{"height":"0","round":0,"step":0}`. */
  static async load(keyPath: string, statePath: string, options: FilePVOptions = {}): Promise<FilePV> {
    return FilePV.fromKey(await loadValidatorKey(keyPath), statePath, options)
  }

  /** A signer for `key` with the state at `statePath` (created when missing). */
  static async fromKey(key: ValidatorKey, statePath: string, options: FilePVOptions = {}): Promise<FilePV> {
    let state: LastSignState | undefined
    try {
      state = parseSignState(await readFile(statePath, 'utf8'), statePath)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
    const pv = new FilePV(key, statePath, state, options)
    if (!state) await pv.saveState()
    return pv
  }

  get address(): Uint8Array {
    return this.key.address
  }

  get pubKey(): Uint8Array {
    return this.key.publicKey
  }

  lastSignState(): Readonly<LastSignState> {
    return this.lss
  }

  async signVote(chainId: string, vote: Vote): Promise<Vote> {
    const step = vote.type === SignedMsgType.Prevote ? SignStep.Prevote : SignStep.Precommit
    return this.serialize(async () => {
      const bytes = voteSignBytes(chainId, vote)
      const reuse = this.checkSameStep(vote.height, vote.round, step, bytes, CANONICAL_VOTE_TIME_FIELD, (t) =>
        voteSignBytes(chainId, { ...vote, timestamp: t }),
      )
      if (reuse) return { ...vote, timestamp: reuse.timestamp, signature: reuse.signature }
      const signature = ed25519Sign(this.key.seed, bytes)
      await this.saveSigned(vote.height, vote.round, step, bytes, signature)
      return { ...vote, signature }
    })
  }

  async signProposal(chainId: string, proposal: Proposal): Promise<Proposal> {
    return this.serialize(async () => {
      const bytes = proposalSignBytes(chainId, proposal)
      const reuse = this.checkSameStep(proposal.height, proposal.round, SignStep.Propose, bytes, CANONICAL_PROPOSAL_TIME_FIELD, (t) =>
        proposalSignBytes(chainId, { ...proposal, timestamp: t }),
      )
      if (reuse) return { ...proposal, timestamp: reuse.timestamp, signature: reuse.signature }
      const signature = ed25519Sign(this.key.seed, bytes)
      await this.saveSigned(proposal.height, proposal.round, SignStep.Propose, bytes, signature)
      return { ...proposal, signature }
    })
  }

  /**
   * CometBFT `CheckHRS` + the same-step rule: a regression in height, round or step is refused; the same
   * step with identical sign bytes, or bytes that differ only in the timestamp, returns the earlier
   * signature and timestamp; any other difference is refused. Undefined = a new step, sign it.
   */
  private checkSameStep(
    height: number,
    round: number,
    step: SignStep,
    signBytes: Uint8Array,
    timeField: number,
    rebuild: (t: Timestamp) => Uint8Array,
  ): { signature: Uint8Array; timestamp: Timestamp } | undefined {
    const lss = this.lss
    if (lss.height > height) throw new DoubleSignError(`height regression. Got ${height}, last height ${lss.height}`)
    if (lss.height < height) return undefined
    if (lss.round > round) throw new DoubleSignError(`round regression at height ${height}. Got ${round}, last round ${lss.round}`)
    if (lss.round < round) return undefined
    if (lss.step > step) throw new DoubleSignError(`step regression at height ${height} round ${round}. Got ${step}, last step ${lss.step}`)
    if (lss.step < step) return undefined
    if (!lss.signBytes || !lss.signature) throw new DoubleSignError('no SignBytes found')
    const earlier = readTimestamp(lss.signBytes, timeField)
    if (equalBytes(signBytes, lss.signBytes) || (earlier && equalBytes(rebuild(earlier), lss.signBytes))) {
      return { signature: lss.signature, timestamp: earlier ?? { seconds: 0, nanos: 0 } }
    }
    throw new DoubleSignError(`conflicting data: already signed a different message at height ${height} round ${round} step ${step}`)
  }

  async deferStateWrites<T>(signing: () => Promise<T>): Promise<T> {
    this.deferring = true
    try {
      return await signing()
    } finally {
      this.deferring = false
      await this.serialize(() => this.saveState())
    }
  }

  async rewindTo(height: number): Promise<void> {
    await this.serialize(async () => {
      this.lss = { height, round: 0, step: SignStep.None }
      await this.saveState()
    })
  }

  private async saveSigned(height: number, round: number, step: SignStep, signBytes: Uint8Array, signature: Uint8Array): Promise<void> {
    const previous = this.lss
    this.lss = { height, round, step, signature, signBytes }
    if (this.deferring) return
    try {
      await this.saveState()
    } catch (err) {
      this.lss = previous
      throw err
    }
  }

  /**
   * Atomic replace: write a temp file, fsync it, rename over the state file, fsync the folder. The
   * fsyncs are asynchronous so the event loop keeps serving RPC while the disk syncs (CometBFT blocks only
   * the signing goroutine); signing waits for them, and `serialize` keeps saves in order.
   */
  private async saveState(): Promise<void> {
    const json: Record<string, unknown> = { height: String(this.lss.height), round: this.lss.round, step: this.lss.step }
    if (this.lss.signature) json.signature = bytesToBase64(this.lss.signature)
    if (this.lss.signBytes) json.signbytes = bytesToUpperHex(this.lss.signBytes)
    if (!this.dirReady) {
      await mkdir(dirname(this.statePath), { recursive: true })
      this.dirReady = true
    }
    await this.writeState(this.statePath, JSON.stringify(json, null, 2) + '\n', 0o600)
  }

  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const next = this.lock.then(op)
    this.lock = next.catch(() => undefined)
    return next
  }
}

function parseSignState(text: string, path: string): LastSignState {
  const json = JSON.parse(text) as { height?: unknown; round?: unknown; step?: unknown; signature?: unknown; signbytes?: unknown }
  const height = typeof json.height === 'string' ? Number(json.height) : json.height
  if (typeof height !== 'number' || !Number.isSafeInteger(height) || height < 0) throw new Error(`${path}: invalid height`)
  if (typeof json.round !== 'number' || !Number.isInteger(json.round) || json.round < 0) throw new Error(`${path}: invalid round`)
  if (json.step !== 0 && json.step !== 1 && json.step !== 2 && json.step !== 3) throw new Error(`${path}: invalid step`)
  const state: LastSignState = { height, round: json.round, step: json.step }
  if (typeof json.signature === 'string' && json.signature !== '') state.signature = base64ToBytes(json.signature)
  if (typeof json.signbytes === 'string' && json.signbytes !== '') state.signBytes = hexToBytes(json.signbytes)
  return state
}

/** The timestamp inside delimited canonical sign bytes, or undefined when they do not parse. */
function readTimestamp(signBytes: Uint8Array, field: number): Timestamp | undefined {
  try {
    // Skip the uvarint length prefix of MarshalDelimited.
    let off = 0
    while (off < signBytes.length && signBytes[off]! & 0x80) off++
    const r = new ProtoReader(signBytes.subarray(off + 1))
    while (r.next()) {
      if (r.field !== field) {
        r.skip()
        continue
      }
      const t = new ProtoReader(r.bytes())
      const ts: Timestamp = { seconds: 0, nanos: 0 }
      while (t.next()) {
        if (t.field === 1) ts.seconds = t.int64Number()
        else if (t.field === 2) ts.nanos = t.int32()
        else t.skip()
      }
      return ts
    }
  } catch {
    return undefined
  }
  return undefined
}
