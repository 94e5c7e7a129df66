/**
 * eth_getLogs results as bytes copied from JSON rendered once per block: the chain hands out the same
 * array of logs for a block while the block is cached (evm/store/log-matches.ts), so the JSON of all
 * its logs is rendered into one buffer, `log,log,...`, memoised against that array, and a result is
 * spliced from it: one chunk per run of neighbouring logs, the whole block when every log matched
 * (rpc/raw-json.ts). A block is rendered whole the first time any of its logs is asked for.
 *
 * The text of a log is exactly `JSON.stringify(formatLog(log))`: every value is hex, a number or a
 * boolean, so nothing needs escaping and the text is ASCII (its latin1 and UTF-8 bytes are the same).
 */
import type { LogMatches } from '../../evm/store/log-matches.js'
import type { EvmLog } from '../../evm/store/views.js'
import { RawJson } from '../../rpc/raw-json.js'
import { encodeData } from './format.js'

const OPEN = Buffer.from('[')
const COMMA = Buffer.from(',')
const CLOSE = Buffer.from(']')
const COMMA_BYTE = 0x2c

/** The JSON of a block's logs: `bytes` is `log,log,...`; log i spans [starts[i], starts[i + 1] - 1). */
interface BlockJson {
  bytes: Buffer
  /** One more entry than logs: the last is `bytes.length + 1`, as if a comma followed the last log. */
  starts: Uint32Array
}

const rendered = new WeakMap<readonly EvmLog[], BlockJson>()

/** A JSON array of the matched logs as a raw result. */
export function renderLogsJson(matches: LogMatches): RawJson {
  const chunks: Uint8Array[] = [OPEN]
  for (const { logs, indexes } of matches.blocks) {
    const { bytes, starts } = blockJson(logs)
    for (let i = 0; i < indexes.length; ) {
      let j = i
      while (j + 1 < indexes.length && indexes[j + 1] === indexes[j]! + 1) j++
      if (chunks.length > 1) chunks.push(COMMA)
      chunks.push(bytes.subarray(starts[indexes[i]!], starts[indexes[j]! + 1]! - 1))
      i = j + 1
    }
  }
  chunks.push(CLOSE)
  return new RawJson(chunks)
}

function blockJson(logs: readonly EvmLog[]): BlockJson {
  let json = rendered.get(logs)
  if (json === undefined) {
    json = renderBlockJson(logs)
    rendered.set(logs, json)
  }
  return json
}

function renderBlockJson(logs: readonly EvmLog[]): BlockJson {
  const texts = logs.map(renderLogJson)
  const starts = new Uint32Array(logs.length + 1)
  let length = 0
  for (let i = 0; i < texts.length; i++) {
    starts[i] = length
    length += texts[i]!.length + 1
  }
  starts[texts.length] = length
  // Not from Buffer's shared pool: a pooled slice would keep its whole 8 KB slab alive while the block is cached.
  const bytes = Buffer.allocUnsafeSlow(Math.max(0, length - 1))
  for (let i = 0; i < texts.length; i++) {
    bytes.write(texts[i]!, starts[i]!, 'latin1')
    if (i + 1 < texts.length) bytes[starts[i + 1]! - 1] = COMMA_BYTE
  }
  return { bytes, starts }
}

/** The JSON text of one log, as `JSON.stringify(formatLog(log))`. */
export function renderLogJson(log: EvmLog): string {
  let topics = ''
  for (let i = 0; i < log.topics.length; i++) topics += (i === 0 ? '"' : ',"') + encodeData(log.topics[i]!) + '"'
  return (
    '{"address":"' +
    encodeData(log.address) +
    '","topics":[' +
    topics +
    '],"data":"' +
    encodeData(log.data) +
    '","blockNumber":"0x' +
    log.blockNumber.toString(16) +
    '","transactionHash":"' +
    encodeData(log.transactionHash) +
    '","transactionIndex":"0x' +
    log.transactionIndex.toString(16) +
    '","blockHash":"' +
    encodeData(log.blockHash) +
    '","logIndex":"0x' +
    log.logIndex.toString(16) +
    '","removed":' +
    (log.removed ? 'true' : 'false') +
    '}'
  )
}
