/**
 * Human rendering of `nodectl trace` results (the `--json` output is the node's result itself):
 *
 * - callTracer: an indented call tree, one line per frame — type, from → to, the function (a known
 *   signature, else the 4-byte selector; precompiles by name), value when non-zero, gas used, and for a
 *   failed frame `✗ error: <reason>`: the decoded revert reason (`Error(string)`, `Panic(uint256)`
 *   with its meaning, a custom error by known name or selector), else geth's error (`out of gas`…).
 *   `withLog` logs are lines among the frame's calls, at their position. Plain text, no colour.
 * - the struct logger: a compact opcode table (pc, op, gas, cost, depth) and a summary line.
 * - every other tracer: its JSON, indented.
 *
 * The headline of a traced transaction or call states how it ended (`succeeded`, `reverted: <reason>`,
 * `failed: <error>`).
 */
import type { StructLogJson } from '../evm/tracing/struct-logger.js'
import { decodeRevertReason } from '../evm/vm-errors.js'
import { keccak256 } from '../crypto/index.js'
import { bytesToHex, hexToBytes, utf8ToBytes } from '../primitives/hex.js'
import { formatEther } from '../primitives/ether.js'

/** A callTracer frame as the node sends it (geth `callFrame` JSON; numbers are hex QUANTITYs). */
export interface CallFrameJson {
  type: string
  from: string
  to?: string
  value?: string
  gas?: string
  gasUsed?: string
  input?: string
  output?: string
  error?: string
  revertReason?: string
  calls?: CallFrameJson[]
  logs?: { address: string; topics?: string[]; data?: string; position?: string }[]
}

/** The struct logger's result (geth `ExecutionResult`). */
export interface StructTraceJson {
  gas: number
  failed: boolean
  returnValue: string
  structLogs: StructLogJson[]
}

/** One entry of a block trace: `{txHash, result}` or `{txHash, error}`. */
export interface BlockTraceEntry {
  txHash: string
  result?: unknown
  error?: string
}

/** How a result is shown: the call tree, the opcode table, or indented JSON. */
export type TraceView = 'tree' | 'opcodes' | 'json'

// ---- selectors ----

function selectorOf(signature: string): string {
  return bytesToHex(keccak256(utf8ToBytes(signature)).subarray(0, 4))
}

function bySelector(signatures: readonly string[]): Map<string, string> {
  return new Map(signatures.map((s) => [selectorOf(s), s]))
}

/** Functions named instead of their selector: ERC-20/721/1155, WETH, ERC-165, multicall. */
const KNOWN_FUNCTIONS = bySelector([
  'transfer(address,uint256)',
  'transferFrom(address,address,uint256)',
  'approve(address,uint256)',
  'balanceOf(address)',
  'allowance(address,address)',
  'totalSupply()',
  'name()',
  'symbol()',
  'decimals()',
  'increaseAllowance(address,uint256)',
  'decreaseAllowance(address,uint256)',
  'permit(address,address,uint256,uint256,uint8,bytes32,bytes32)',
  'nonces(address)',
  'ownerOf(uint256)',
  'safeTransferFrom(address,address,uint256)',
  'safeTransferFrom(address,address,uint256,bytes)',
  'setApprovalForAll(address,bool)',
  'getApproved(uint256)',
  'isApprovedForAll(address,address)',
  'tokenURI(uint256)',
  'safeTransferFrom(address,address,uint256,uint256,bytes)',
  'safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)',
  'balanceOfBatch(address[],uint256[])',
  'supportsInterface(bytes4)',
  'deposit()',
  'withdraw(uint256)',
  'mint(address,uint256)',
  'burn(uint256)',
  'owner()',
  'transferOwnership(address)',
  'renounceOwnership()',
  'multicall(bytes[])',
  'aggregate((address,bytes)[])',
  'onERC721Received(address,address,uint256,bytes)',
])

/** Custom errors named instead of their selector: OpenZeppelin 5's token and access errors. */
const KNOWN_ERRORS = bySelector([
  'ERC20InsufficientBalance(address,uint256,uint256)',
  'ERC20InsufficientAllowance(address,uint256,uint256)',
  'ERC20InvalidSender(address)',
  'ERC20InvalidReceiver(address)',
  'ERC20InvalidApprover(address)',
  'ERC20InvalidSpender(address)',
  'ERC721NonexistentToken(uint256)',
  'ERC721IncorrectOwner(address,uint256,address)',
  'ERC721InsufficientApproval(address,uint256)',
  'ERC721InvalidReceiver(address)',
  'OwnableUnauthorizedAccount(address)',
  'OwnableInvalidOwner(address)',
  'AccessControlUnauthorizedAccount(address,bytes32)',
  'ReentrancyGuardReentrantCall()',
  'EnforcedPause()',
  'ExpectedPause()',
  'SafeERC20FailedOperation(address)',
  'AddressEmptyCode(address)',
  'FailedCall()',
  'InvalidInitialization()',
])

/** Events named in `withLog` lines. */
const KNOWN_EVENTS = new Map(
  [
    'Transfer(address,address,uint256)',
    'Approval(address,address,uint256)',
    'ApprovalForAll(address,address,bool)',
    'OwnershipTransferred(address,address)',
    'Deposit(address,uint256)',
    'Withdrawal(address,uint256)',
  ].map((s) => [bytesToHex(keccak256(utf8ToBytes(s))), s]),
)

/** The precompiles of Cancun by address. */
const PRECOMPILES: Record<number, string> = {
  1: 'ecrecover',
  2: 'sha256',
  3: 'ripemd160',
  4: 'identity',
  5: 'modexp',
  6: 'bn256Add',
  7: 'bn256ScalarMul',
  8: 'bn256Pairing',
  9: 'blake2f',
  10: 'kzgPointEvaluation',
}

const ERROR_SELECTOR = '0x08c379a0'
const PANIC_SELECTOR = '0x4e487b71'
const EXECUTION_REVERTED = 'execution reverted'

// ---- values ----

/** A hex QUANTITY (or decimal string, or number) as a bigint; 0 when absent or unreadable. */
function bigOf(value: unknown): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value)
  if (typeof value !== 'string' || value === '') return 0n
  try {
    return BigInt(value)
  } catch {
    return 0n
  }
}

/** `23,771`: a gas amount with thousands separators. */
export function formatGas(value: unknown): string {
  return bigOf(value).toLocaleString('en-US')
}

/** A value: wei below a micro-ether, ether above. */
export function formatValue(wei: bigint): string {
  return wei < 10n ** 12n ? `${wei} wei` : `${formatEther(wei)} ether`
}

/** The name of a precompile address, undefined for other addresses. */
function precompileName(address: string | undefined): string | undefined {
  if (address === undefined || !/^0x0{38}[0-9a-fA-F]{2}$/.test(address)) return undefined
  return PRECOMPILES[Number.parseInt(address.slice(-2), 16)]
}

/**
 * What a frame calls: a known signature or the 4-byte selector of its input; for a creation, the size
 * of the init code; for a precompile, its name; undefined when there is no input.
 */
export function describeInput(frame: Pick<CallFrameJson, 'type' | 'to' | 'input'>): string | undefined {
  const input = frame.input ?? '0x'
  const bytes = (input.length - 2) / 2
  if (frame.type === 'CREATE' || frame.type === 'CREATE2') return `new contract (${bytes.toLocaleString('en-US')} bytes of init code)`
  const precompile = precompileName(frame.to)
  if (precompile !== undefined) return `${precompile} precompile`
  if (bytes <= 0) return undefined
  if (bytes < 4) return `data ${input}`
  const selector = input.slice(0, 10).toLowerCase()
  return KNOWN_FUNCTIONS.get(selector) ?? selector
}

/**
 * Why revert data says the call failed: `Error(string)` → the string, `Panic(uint256)` →
 * `panic 0x11: arithmetic underflow or overflow`, another selector → `custom error <name or selector>`;
 * undefined for empty or undecodable data.
 */
export function describeRevertData(output: string | undefined): string | undefined {
  if (output === undefined || !/^0x([0-9a-fA-F]{2})+$/.test(output) || output.length < 10) return undefined
  const selector = output.slice(0, 10).toLowerCase()
  if (selector === PANIC_SELECTOR || selector === ERROR_SELECTOR) {
    const reason = decodeRevertReason(hexToBytes(output))
    if (reason === undefined) return undefined
    return selector === PANIC_SELECTOR ? `panic 0x${bigOf(`0x${output.slice(10)}`).toString(16)}: ${reason}` : reason
  }
  const known = KNOWN_ERRORS.get(selector)
  return known ? `custom error ${known}` : `custom error ${selector}`
}

/** The reason a frame failed (its decoded revert data, else its error); undefined when it succeeded. */
export function frameFailure(frame: Pick<CallFrameJson, 'error' | 'revertReason' | 'output'>): string | undefined {
  if (frame.error === undefined) return undefined
  if (frame.error !== EXECUTION_REVERTED) return frame.error
  return describeRevertData(frame.output) ?? frame.revertReason ?? frame.error
}

/** How a transaction or call ended, from its top frame: `succeeded`, `reverted: <reason>`, `failed: <error>`. */
export function frameStatus(top: Pick<CallFrameJson, 'error' | 'revertReason' | 'output'>): string {
  if (top.error === undefined) return 'succeeded'
  const reason = frameFailure(top)
  if (top.error !== EXECUTION_REVERTED) return `failed: ${reason}`
  return reason === EXECUTION_REVERTED ? 'reverted' : `reverted: ${reason}`
}

// ---- the call tree ----

/** One frame's line (without the tree glyphs). */
export function frameLine(frame: CallFrameJson): string {
  const parts = [`${frame.type} ${frame.from} → ${frame.to ?? '(none)'}`]
  const what = describeInput(frame)
  if (what !== undefined) parts.push(what)
  const value = bigOf(frame.value)
  if (value !== 0n) parts.push(`value ${formatValue(value)}`)
  parts.push(`gas ${formatGas(frame.gasUsed)}`)
  const failure = frameFailure(frame)
  if (failure !== undefined) parts.push(`✗ error: ${failure}`)
  return parts.join('  ')
}

/** A `withLog` log's line. */
function logLine(log: NonNullable<CallFrameJson['logs']>[number]): string {
  const topic0 = log.topics?.[0]
  const event = topic0 === undefined ? '(anonymous)' : (KNOWN_EVENTS.get(topic0.toLowerCase()) ?? topic0)
  const size = log.data === undefined ? 0 : (log.data.length - 2) / 2
  const topics = log.topics?.length ?? 0
  return `LOG ${log.address} ${event}  ${topics} topic${topics === 1 ? '' : 's'}, ${size} bytes of data`
}

/** The frame's children in execution order: its calls, with its logs at their positions among them. */
function childrenOf(frame: CallFrameJson): ({ frame: CallFrameJson } | { log: NonNullable<CallFrameJson['logs']>[number] })[] {
  const calls = frame.calls ?? []
  const logs = [...(frame.logs ?? [])].map((log, i) => ({ log, i, at: Number(bigOf(log.position)) }))
  logs.sort((a, b) => a.at - b.at || a.i - b.i)
  const out: ({ frame: CallFrameJson } | { log: NonNullable<CallFrameJson['logs']>[number] })[] = []
  let next = 0
  for (let c = 0; c <= calls.length; c++) {
    while (next < logs.length && logs[next]!.at <= c) out.push({ log: logs[next++]!.log })
    if (c < calls.length) out.push({ frame: calls[c]! })
  }
  while (next < logs.length) out.push({ log: logs[next++]!.log })
  return out
}

/** The call tree: the top frame, then its children indented with `├─`/`└─` glyphs. */
export function renderCallTree(top: CallFrameJson): string {
  const lines: string[] = [frameLine(top)]
  const walk = (frame: CallFrameJson, indent: string): void => {
    const children = childrenOf(frame)
    children.forEach((child, i) => {
      const last = i === children.length - 1
      const glyph = last ? '└─ ' : '├─ '
      if ('log' in child) {
        lines.push(indent + glyph + logLine(child.log))
        return
      }
      lines.push(indent + glyph + frameLine(child.frame))
      walk(child.frame, indent + (last ? '   ' : '│  '))
    })
  }
  walk(top, '')
  return lines.join('\n')
}

// ---- the struct logger ----

/** Whether a result has the struct logger's shape. */
export function isStructTrace(value: unknown): value is StructTraceJson {
  return typeof value === 'object' && value !== null && Array.isArray((value as StructTraceJson).structLogs)
}

/** Whether a result has callTracer's shape. */
export function isCallFrame(value: unknown): value is CallFrameJson {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as CallFrameJson).type === 'string' &&
    typeof (value as CallFrameJson).from === 'string'
  )
}

/** The compact opcode table (pc, op, gas, cost, depth; an error column when a step failed) and a summary. */
export function renderStructLogs(trace: StructTraceJson, limit?: number): string {
  const head = ['pc', 'op', 'gas', 'cost', 'depth']
  const withError = trace.structLogs.some((s) => s.error !== undefined)
  const rows = trace.structLogs.map((s) => [
    String(s.pc),
    s.op,
    String(s.gas),
    String(s.gasCost),
    String(s.depth),
    ...(withError ? [s.error ?? ''] : []),
  ])
  if (withError) head.push('error')
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)))
  // numbers right-aligned, the opcode and error left-aligned
  const line = (cells: string[]): string =>
    cells
      .map((cell, c) => (c === 1 || c === 5 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join('  ')
      .trimEnd()
  const lines = [line(head), ...rows.map(line)]
  const shown =
    limit !== undefined && limit > 0 && trace.structLogs.length >= limit
      ? `first ${trace.structLogs.length} steps (--limit ${limit})`
      : `${trace.structLogs.length} steps`
  const outcome = trace.failed
    ? `failed${describeRevertData(trace.returnValue) ? `: ${describeRevertData(trace.returnValue)}` : ''}`
    : 'succeeded'
  const returned = trace.returnValue && trace.returnValue !== '0x' ? `, returned ${trace.returnValue}` : ''
  lines.push(`${shown}; gas used ${formatGas(trace.gas)}; ${outcome}${returned}`)
  return lines.join('\n')
}

// ---- any result ----

/** Indented JSON. */
export function renderJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'null'
}

/** One result in the chosen view; a result of another shape than the view expects is shown as JSON. */
export function renderResult(view: TraceView, result: unknown, limit?: number): string {
  if (view === 'tree' && isCallFrame(result)) return renderCallTree(result)
  if (view === 'opcodes' && isStructTrace(result)) return renderStructLogs(result, limit)
  return renderJson(result)
}

/**
 * How a traced transaction or call ended, when the view shows it: the top frame's status (call tree)
 * or the struct logger's `failed` (opcodes); undefined for the other tracers.
 */
export function statusOf(view: TraceView, result: unknown): string | undefined {
  if (view === 'tree' && isCallFrame(result)) return frameStatus(result)
  if (view === 'opcodes' && isStructTrace(result)) {
    if (!result.failed) return 'succeeded'
    const reason = describeRevertData(result.returnValue)
    return reason ? `failed: ${reason}` : 'failed'
  }
  return undefined
}

/** `transaction 0x… reverted: insufficient balance`, then the result. */
export function renderTransactionTrace(hash: string, view: TraceView, result: unknown, limit?: number): string {
  const status = statusOf(view, result)
  return `transaction ${hash}${status ? ` ${status}` : ''}\n${renderResult(view, result, limit)}`
}

/** `call succeeded, returned 0x…` (or how it failed), then the result. */
export function renderCallTrace(view: TraceView, result: unknown, limit?: number): string {
  const status = statusOf(view, result)
  const output = isCallFrame(result) && result.error === undefined && result.output ? `, returned ${result.output}` : ''
  return `${status ? `call ${status}${output}` : 'call traced'}\n${renderResult(view, result, limit)}`
}

/** A block trace: a headline, then per transaction `#i 0xhash <status>` and its result (or why its trace failed). */
export function renderBlockTrace(block: string, view: TraceView, entries: readonly BlockTraceEntry[], limit?: number): string {
  if (entries.length === 0) return `block ${block}: no transactions`
  const parts = [`block ${block}: ${entries.length} transaction${entries.length === 1 ? '' : 's'}`]
  entries.forEach((entry, i) => {
    if (entry.error !== undefined) {
      parts.push(`\n#${i} ${entry.txHash} ✗ trace failed: ${entry.error}`)
      return
    }
    const status = statusOf(view, entry.result)
    parts.push(`\n#${i} ${entry.txHash}${status ? ` ${status}` : ''}\n${renderResult(view, entry.result, limit)}`)
  })
  return parts.join('\n')
}
