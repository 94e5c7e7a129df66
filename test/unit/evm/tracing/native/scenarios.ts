/**
 * Hook sequences modelled on geth's tracer fixtures (eth/tracers/internal/tracetest/testdata), shared
 * by the tracer tests: what the executor would report for the transactions they describe.
 */
import { concatBytes, utf8ToBytes } from '../../../../../src/primitives/hex.js'
import { type HookDriver, addr, data, errorData, lowAddr, panicData, txInfo, word } from './helpers.js'

export const A = addr(0xaa) // the sender
export const C = addr(0xcc) // the contract the transaction calls
export const D = addr(0xdd) // a callee that succeeds and logs
export const L = addr(0x11) // a library C delegatecalls
export const R = addr(0x77) // a callee that reverts with a reason
export const O = addr(0x55) // a callee that runs out of gas
export const K = addr(0x88) // a contract that self-destructs
export const E = addr(0xee) // created by CREATE
export const F = addr(0xef) // a CREATE2 that reverts
export const SHA256 = lowAddr(2) // the sha256 precompile

export const TOP_INPUT = concatBytes(data('0x12345678'), word(9n))
export const D_INPUT = data('0xaabbccdd')
export const L_INPUT = concatBytes(data('0xdeadbeef'), word(7n))
export const R_INPUT = data('0x11223344')
export const K_INPUT = data('0x41c0e1b5')
export const INIT_E = data('0x6080604052348015600f57600080fd')
export const RUNTIME_E = data('0x6080604052600080fd')
export const INIT_F = data('0x60806040526000')
export const TOPIC_C1 = word(0xc1n)
export const TOPIC_C2 = word(0xc2n)
export const TOPIC_D = word(0xd0n)
export const TOPIC_R = word(0x70n)

/**
 * A successful transaction (A → C, 1 wei, 200,000 gas, 160,000 used) whose contract logs, CALLs D (which
 * logs), DELEGATECALLs L, STATICCALLs the sha256 precompile and D, CREATEs E, CREATE2s F (reverted with
 * a reason), CALLs R (which logs and calls D, then reverts with a reason), CALLs O (out of gas) and K
 * (which self-destructs to A), then logs again.
 */
export async function playNested(d: HookDriver, tx = txInfo({ input: TOP_INPUT, value: 1n, gasLimit: 200_000n })): Promise<void> {
  await d.txStart(tx)
  await d.enter('CALL', A, C, { input: TOP_INPUT, gas: 178_000n, value: 1n })
  d.log(C, [TOPIC_C1], word(1n))
  await d.enter('CALL', C, D, { input: D_INPUT, gas: 50_000n, value: 5n })
  d.log(D, [TOPIC_D])
  await d.exit({ output: word(1n), gasUsed: 3_000n })
  await d.enter('DELEGATECALL', C, L, { input: L_INPUT, gas: 40_000n, value: 1n })
  await d.exit({ output: word(8n), gasUsed: 1_200n })
  await d.enter('STATICCALL', C, SHA256, { input: utf8ToBytes('abcd'), gas: 30_000n })
  await d.exit({ output: word(0x88d4n), gasUsed: 72n })
  await d.enter('STATICCALL', C, D, { input: D_INPUT, gas: 30_000n })
  await d.exit({ output: word(1n), gasUsed: 400n })
  await d.enter('CREATE', C, E, { input: INIT_E, gas: 60_000n })
  await d.exit({ output: RUNTIME_E, gasUsed: 20_000n })
  await d.enter('CREATE2', C, F, { input: INIT_F, gas: 30_000n })
  await d.exit({ output: errorData('create failed'), error: 'execution reverted', gasUsed: 500n })
  await d.enter('CALL', C, R, { input: R_INPUT, gas: 20_000n })
  d.log(R, [TOPIC_R])
  await d.enter('CALL', R, D, { input: D_INPUT, gas: 5_000n })
  d.log(D, [TOPIC_D])
  await d.exit({ output: word(1n), gasUsed: 300n })
  await d.exit({ output: errorData('insufficient funds'), error: 'execution reverted', gasUsed: 2_000n })
  await d.enter('CALL', C, O, { input: data('0x0102'), gas: 1_000n })
  await d.exit({ error: 'out of gas', gasUsed: 1_000n })
  await d.enter('CALL', C, K, { input: K_INPUT, gas: 10_000n })
  await d.enter('SELFDESTRUCT', K, A, { value: 50n })
  await d.exit()
  await d.exit({ gasUsed: 5_000n })
  d.log(C, [TOPIC_C2])
  await d.exit({ output: word(42n), gasUsed: 139_000n })
  await d.txEnd({ gasUsed: 160_000n, output: word(42n) })
}

/** A transaction whose contract logs, calls D (which logs), then panics with an arithmetic overflow. */
export async function playTopRevert(d: HookDriver): Promise<void> {
  await d.txStart(txInfo({ input: R_INPUT }))
  await d.enter('CALL', A, C, { input: R_INPUT, gas: 78_936n })
  d.log(C, [TOPIC_C1])
  await d.enter('CALL', C, D, { input: D_INPUT, gas: 20_000n })
  d.log(D, [TOPIC_D])
  await d.exit({ output: word(1n), gasUsed: 300n })
  await d.exit({ output: panicData(0x11n), error: 'execution reverted', reverted: true, gasUsed: 4_000n })
  await d.txEnd({ gasUsed: 25_064n, output: panicData(0x11n), error: 'execution reverted', reverted: true })
}
