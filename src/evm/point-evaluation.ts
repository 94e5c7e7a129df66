/**
 * EIP-4844's point evaluation precompile (0x0a) as this chain runs it. The chain refuses blob
 * transactions, and no KZG library fit for consensus is at hand: the WebAssembly build of c-kzg takes
 * half a minute to load its trusted setup, a pure JavaScript check a third of a second a proof (a block
 * of them would stall every validator for minutes). So the precompile keeps its address, its gas and
 * its input checks (length, versioned hash against the commitment) and then verifies nothing: it fails
 * every call, consuming the call's gas as a failed proof does. It fails closed — a contract asking it
 * learns "not verified", never "verified".
 *
 * Left to the EVM library, the precompile threw out of the transaction ("kzg not initialized") with
 * the checkpoints of its calls still open: one transaction to 0x0a halted the chain.
 */
import { EVMError, type AddPrecompile, type ExecResult, type PrecompileInput } from '@ethereumjs/evm'
import { Address, bytesToHex, computeVersionedHash } from '@ethereumjs/util'

/** The precompile's address, 0x…0a. */
export const POINT_EVALUATION_ADDRESS = new Address(new Uint8Array([...new Array(19).fill(0), 0x0a]))

/** What the failed check says (a receipt's and a trace's error). */
export const POINT_EVALUATION_UNSUPPORTED = 'kzg point evaluation is not supported on this chain'

/** EIP-4844's input: versioned hash (32) ‖ z (32) ‖ y (32) ‖ commitment (48) ‖ proof (48). */
const INPUT_BYTES = 192

/** A failed call: all its gas consumed, as the EVM's own failed precompiles end. */
function failed(message: string, gasLimit: bigint): ExecResult {
  // The library types its errors as its own messages; this chain's one is a message of its own.
  return { returnValue: new Uint8Array(0), executionGasUsed: gasLimit, exceptionError: new EVMError(message as EVMError['error']) }
}

function pointEvaluation({ data, gasLimit, common }: PrecompileInput): ExecResult {
  if (gasLimit < common.param('kzgPointEvaluationPrecompileGas')) return failed(EVMError.errorMessages.OUT_OF_GAS, gasLimit)
  if (data.length !== INPUT_BYTES) return failed(EVMError.errorMessages.INVALID_INPUT_LENGTH, gasLimit)
  const version = Number(common.param('blobCommitmentVersionKzg'))
  if (computeVersionedHash(bytesToHex(data.subarray(96, 144)), version) !== bytesToHex(data.subarray(0, 32))) {
    return failed(EVMError.errorMessages.INVALID_COMMITMENT, gasLimit)
  }
  return failed(POINT_EVALUATION_UNSUPPORTED, gasLimit)
}

/** The replacement every VM of the node is created with. */
export const POINT_EVALUATION_PRECOMPILE: AddPrecompile = { address: POINT_EVALUATION_ADDRESS, function: pointEvaluation }
