/**
 * eth_getLogs results rendered once per log: the chain hands out the same EvmLog objects for a block
 * while it is cached (chain/evm/block-logs.ts), so each log's JSON text is memoised against the object
 * and a result is the join of those texts. The text is exactly `JSON.stringify(formatLog(log))`
 * (every value is hex, a number or a boolean: nothing needs escaping).
 */
import { RawJson } from '../../rpc/raw-json.js'
import type { EvmLog } from '../../chain/evm/views.js'
import { encodeData } from './format.js'

const rendered = new WeakMap<EvmLog, string>()

/** The JSON text of one log (as `formatLog`), memoised per log object. */
export function renderLogJson(log: EvmLog): string {
  let text = rendered.get(log)
  if (text === undefined) {
    let topics = ''
    for (let i = 0; i < log.topics.length; i++) topics += (i === 0 ? '"' : ',"') + encodeData(log.topics[i]!) + '"'
    text =
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
    // Reading a character flattens V8's concatenation tree once, here, instead of in every later join.
    text.charCodeAt(0)
    rendered.set(log, text)
  }
  return text
}

/** A JSON array of logs as a raw result. */
export function renderLogsJson(logs: readonly EvmLog[]): RawJson {
  return RawJson.array(logs.map(renderLogJson))
}
