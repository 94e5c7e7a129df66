/**
 * The raw-data getters of geth's DebugAPI (internal/ethapi/api.go): debug_getRawHeader,
 * debug_getRawBlock, debug_getRawReceipts (consensus RLP of the EVM view, evm/store/raw-block.ts),
 * debug_getRawTransaction (the signed bytes; `0x` for an unknown hash, as geth's nil bytes) and
 * debug_getBadBlocks (always `[]`: a BFT chain commits no block that failed validation).
 */
import { bytesToHex } from '../../primitives/hex.js'
import { hash } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import { blockSelector } from '../eth/block-params.js'
import type { DebugBackend } from './backend.js'
import { resolveBlock } from './resolve-block.js'

export function createDebugRawMethods(backend: DebugBackend): MethodTable {
  return [
    defineMethod('debug_getRawHeader', [required(blockSelector)], async ([at]) =>
      bytesToHex(await backend.getRawHeader(await resolveBlock(backend, at, 'header'))),
    ),
    defineMethod('debug_getRawBlock', [required(blockSelector)], async ([at]) =>
      bytesToHex(await backend.getRawBlock(await resolveBlock(backend, at))),
    ),
    defineMethod('debug_getRawReceipts', [required(blockSelector)], async ([at]) =>
      (await backend.getRawReceipts(await resolveBlock(backend, at))).map(bytesToHex),
    ),
    defineMethod('debug_getRawTransaction', [required(hash)], async ([txHash]) =>
      bytesToHex((await backend.getRawTransaction(txHash)) ?? new Uint8Array(0)),
    ),
    defineMethod('debug_getBadBlocks', [], () => []),
  ]
}
