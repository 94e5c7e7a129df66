/**
 * The chain's rules as EIP-7910 (eth_config) describes a fork. The chain runs one rule set from its
 * genesis to its end — Cancun (common.ts), with EIP-7702 on a dev chain that enables it — and
 * schedules no fork, so there is a current configuration and never a next or last one:
 * - `activationTime` 0: the rules are active from genesis (EIP-7910's value for a fork at genesis);
 * - `forkId`: EIP-6122's FORK_HASH, the CRC32 of the genesis hash updated with each fork activated
 *   after genesis; forks at genesis are not counted and there is none after, so it is the CRC32 of
 *   the genesis hash (the EVM genesis block's hash, as geth takes it from header 0);
 * - `blobSchedule`: no blobs (blob transactions are refused), with Cancun's update fraction (blob-fee.ts);
 * - `precompiles`: the precompiles the EVM library activates under the chain's Common, under
 *   EIP-7910's names, plus the chain's validator-admin contract, which the EVM runs as a precompile;
 * - `systemContracts`: none. Cancun's only one, EIP-4788's beacon-roots contract, is neither deployed
 *   nor called: the chain has no beacon chain (headers carry a zero parentBeaconBlockRoot).
 */
import { crc32 } from 'node:zlib'
import type { Common } from '@ethereumjs/common'
import { getActivePrecompiles } from '@ethereumjs/evm'
import { hexToBytes } from '../primitives/hex.js'
import { BLOB_BASE_FEE_UPDATE_FRACTION, BLOBS_PER_BLOCK } from './blob-fee.js'
import { VALIDATOR_ADMIN_ADDRESS } from './validators/validator-admin.js'

/** One EIP-7910 configuration object, before JSON formatting. */
export interface ForkConfig {
  /** Unix seconds; 0 for rules active from genesis. */
  activationTime: number
  blobSchedule: { baseFeeUpdateFraction: number; max: number; target: number }
  chainId: bigint
  /** EIP-6122 FORK_HASH, 4 bytes. */
  forkId: Uint8Array
  /** Name → 20-byte address, in address order. */
  precompiles: [string, Uint8Array][]
  /** Name → 20-byte address. */
  systemContracts: [string, Uint8Array][]
}

/** EIP-7910's names of the standard precompiles, by address (Cancun's, then Prague's and Osaka's). */
const PRECOMPILE_NAMES: Readonly<Record<string, string>> = {
  '0000000000000000000000000000000000000001': 'ECREC',
  '0000000000000000000000000000000000000002': 'SHA256',
  '0000000000000000000000000000000000000003': 'RIPEMD160',
  '0000000000000000000000000000000000000004': 'ID',
  '0000000000000000000000000000000000000005': 'MODEXP',
  '0000000000000000000000000000000000000006': 'BN254_ADD',
  '0000000000000000000000000000000000000007': 'BN254_MUL',
  '0000000000000000000000000000000000000008': 'BN254_PAIRING',
  '0000000000000000000000000000000000000009': 'BLAKE2F',
  '000000000000000000000000000000000000000a': 'KZG_POINT_EVALUATION',
  '000000000000000000000000000000000000000b': 'BLS12_G1ADD',
  '000000000000000000000000000000000000000c': 'BLS12_G1MSM',
  '000000000000000000000000000000000000000d': 'BLS12_G2ADD',
  '000000000000000000000000000000000000000e': 'BLS12_G2MSM',
  '000000000000000000000000000000000000000f': 'BLS12_PAIRING_CHECK',
  '0000000000000000000000000000000000000010': 'BLS12_MAP_FP_TO_G1',
  '0000000000000000000000000000000000000011': 'BLS12_MAP_FP2_TO_G2',
  '0000000000000000000000000000000000000100': 'P256VERIFY',
}

/** The name nodectl gives its validator-admin precompile (no EIP names it). */
export const VALIDATOR_ADMIN_NAME = 'VALIDATOR_ADMIN'

/** The configuration of the rules `common` runs on a chain whose EVM genesis block has `genesisHash`. */
export function describeForkConfig(common: Common, genesisHash: Uint8Array): ForkConfig {
  const precompiles: [string, Uint8Array][] = []
  for (const address of getActivePrecompiles(common).keys()) {
    const name = PRECOMPILE_NAMES[address]
    if (name === undefined) throw new Error(`precompile 0x${address} has no EIP-7910 name`)
    precompiles.push([name, hexToBytes('0x' + address)])
  }
  precompiles.push([VALIDATOR_ADMIN_NAME, VALIDATOR_ADMIN_ADDRESS])
  return {
    activationTime: 0,
    blobSchedule: { baseFeeUpdateFraction: Number(BLOB_BASE_FEE_UPDATE_FRACTION), ...BLOBS_PER_BLOCK },
    chainId: common.chainId(),
    forkId: forkHash(genesisHash),
    precompiles,
    systemContracts: [],
  }
}

/** EIP-6122 (after EIP-2124) FORK_HASH of a chain without forks after genesis: CRC32(genesis hash), big-endian. */
function forkHash(genesisHash: Uint8Array): Uint8Array {
  const out = new Uint8Array(4)
  new DataView(out.buffer).setUint32(0, crc32(genesisHash))
  return out
}
