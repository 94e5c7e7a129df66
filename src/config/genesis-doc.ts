/** Types of the genesis document (config/genesis.json); see genesis.ts for the file format. */
import type { Timestamp } from '../utils/time.js'

/**
 * Consensus parameters: the same shape as `ConsensusParams` of comet/types.ts (declared again
 * because config/, layer 1, may not import chain/, layer 2; TypeScript's structural typing makes the
 * two interchangeable, and test/unit/config/genesis.test.ts checks they stay equal).
 */
export interface GenesisConsensusParams {
  /** Largest block (bytes) and block gas limit (gas). */
  block: { maxBytes: bigint; maxGas: bigint }
  /** How old evidence may be (blocks and ns), and the evidence bytes per block. */
  evidence: { maxAgeNumBlocks: bigint; maxAgeDurationNs: bigint; maxBytes: bigint }
  /** ABCI public key types validators may use ("ed25519"). */
  validator: { pubKeyTypes: string[] }
  /** Application protocol version. */
  version: { app: bigint }
  /** Height vote extensions start at; 0 = never. */
  abci: { voteExtensionsEnableHeight: bigint }
}

/** Amino-JSON type of an ed25519 public key. */
export const PUBKEY_ED25519_TYPE = 'tendermint/PubKeyEd25519'

/** Voting power `init` gives its one validator (CometBFT's `init` uses 10 too). */
export const DEFAULT_VALIDATOR_POWER = 10n

/** A validator of the genesis set. */
export interface GenesisValidator {
  /** SHA-256(pubKey)[:20]. */
  address: Uint8Array
  /** ed25519 public key, 32 bytes. */
  pubKey: Uint8Array
  /** Voting power, > 0. */
  power: bigint
  /** Free-form name (the moniker of the node that holds the key). */
  name: string
}

/** The decoded, validated genesis document. */
export interface GenesisDoc {
  /** Time of block 1's header (nanosecond precision). */
  genesisTime: Timestamp
  /** e.g. nodectl_9000-1. */
  chainId: string
  /** EIP-155 chain id: the chain id's middle number. */
  evmChainId: bigint
  /** Height of the first block (default 1). */
  initialHeight: number
  /** Block, evidence and validator parameters. */
  consensusParams: GenesisConsensusParams
  /** Initial validator set, at least one. */
  validators: GenesisValidator[]
  /** Expected app hash before the first block ("" in genesis files written by `init`). */
  appHash: Uint8Array
  /**
   * The application's initial state, top level checked (`evm`, `fee_market`); parsed by evm/. In a
   * document loaded for a node (genesis-file.ts) `evm.accounts` is not here: it stays in the file,
   * where `source` says, and is read account by account (visitGenesisAccounts).
   */
  appState: Record<string, unknown>
  /** Where a node's document left parts of app_state in genesis.json; undefined when all of it is in `appState`. */
  source?: GenesisSource
}

/** A byte range [start, end) of genesis.json. */
export interface ByteRange {
  start: number
  end: number
}

/** The parts of genesis.json a node reads only when InitChain runs. */
export interface GenesisSource {
  /** The genesis.json read. */
  path: string
  /** Its size then: a file whose size changed since is refused rather than read at stale offsets. */
  size: number
  /** The value of `app_state`. */
  appState: ByteRange
  /** The value of `app_state.evm.accounts` (a JSON array), when the file has one. */
  accounts: ByteRange | undefined
}

/** A funded genesis account. */
export interface GenesisAccount {
  /** 0x address (written EIP-55 checksummed). */
  address: string
  /** Balance in wei. */
  balance: bigint
  /** Starting nonce (default 0). */
  nonce?: bigint
}
