/**
 * Chain ids in the Ethermint form `<name>_<evm chain id>-<version>` (`nodectl_9000-1`): the middle
 * number is the EIP-155 chain id every signed transaction commits to, the last one the revision
 * (bumped on a hard fork that restarts the chain).
 */

/** The accepted shape; the same rule as Ethermint's `ParseChainID`, with a lower-case name. */
export const CHAIN_ID_PATTERN = /^[a-z]+_[1-9][0-9]*-[1-9][0-9]*$/

/** CometBFT's `MaxChainIDLen` (types/genesis.go). */
export const MAX_CHAIN_ID_LENGTH = 50

/** Chain id of `nodectl init` when `--chain-id` is not given. */
export const DEFAULT_CHAIN_ID = 'nodectl_9000-1'

/** Chain id of `--dev`: EVM chain id 31337, as Anvil and Hardhat use. */
export const DEV_CHAIN_ID = 'nodectl_31337-1'

/**
 * Largest EVM chain id accepted: 2^53 - 1, so that wallets and JSON numbers carry it exactly (EIP-2294
 * bounds the chain id for the same reason).
 */
export const MAX_EVM_CHAIN_ID = BigInt(Number.MAX_SAFE_INTEGER)

/**
 * Returns the EVM chain id of a chain id (`nodectl_9000-1` → 9000n); throws an Error saying what is wrong.
 * The one parser of chain ids: `init`, genesis decoding and the EVM application all use it.
 */
export function parseChainId(chainId: string): bigint {
  if (chainId.length > MAX_CHAIN_ID_LENGTH) throw new Error(`chain id "${chainId}" is longer than ${MAX_CHAIN_ID_LENGTH} characters`)
  if (!CHAIN_ID_PATTERN.test(chainId))
    throw new Error(
      `invalid chain id "${chainId}": want <name>_<EVM chain id>-<version>, lower-case letters then positive numbers, e.g. ${DEFAULT_CHAIN_ID}`,
    )
  const evmChainId = BigInt(chainId.slice(chainId.indexOf('_') + 1, chainId.lastIndexOf('-')))
  if (evmChainId > MAX_EVM_CHAIN_ID) throw new Error(`invalid chain id "${chainId}": EVM chain id larger than ${MAX_EVM_CHAIN_ID}`)
  return evmChainId
}
