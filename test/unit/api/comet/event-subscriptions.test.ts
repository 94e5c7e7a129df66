/**
 * CometEventSubscriptions over a bare event emitter: pushed shapes, limits and CometBFT's error
 * texts, unsubscribe, and the cancellation of a slow client's subscription instead of buffering.
 */
import { describe, expect, it } from 'vitest'
import { CometEventSubscriptions } from '../../../../src/api/comet/events/event-subscriptions.js'
import { renderCometError, type RpcResponse } from '../../../../src/api/comet/errors.js'
import type { WsClient } from '../../../../src/api/comet/route.js'
import type { ConsensusEvents } from '../../../../src/consensus/events.js'
import { hashTx } from '../../../../src/comet/hash.js'
import { bytesToUpperHex, utf8ToBytes } from '../../../../src/primitives/hex.js'
import { TypedEmitter } from '../../../../src/utils/events.js'

class FakeClient implements WsClient {
  readonly sent: RpcResponse[] = []
  closed = false
  /** How many more messages fit before the buffer is "full" (Infinity = never full). */
  room = Infinity
  private onSent: ((r: RpcResponse) => void) | undefined
  constructor(readonly remoteAddr = '127.0.0.1:5000') {}
  send(r: RpcResponse): boolean {
    if (this.closed || this.room <= 0) return false
    this.room--
    this.sent.push(r)
    this.onSent?.(r)
    return true
  }
  /** The next message the client accepts. */
  nextSent(): Promise<RpcResponse> {
    return new Promise((resolve) => (this.onSent = resolve))
  }
}

const tx = utf8ToBytes('hello')
const txEvent: ConsensusEvents['Tx'] = {
  height: 7,
  index: 0,
  tx,
  result: {
    code: 0,
    data: new Uint8Array(),
    log: '',
    info: '',
    gasWanted: 21000n,
    gasUsed: 21000n,
    codespace: '',
    events: [{ type: 'ethereum', attributes: [{ key: 'recipient', value: '0xabcdef0123456789abcdef0123456789abcdef01', index: true }] }],
  },
}
const roundStep = { height: 3, round: 0, step: 'RoundStepPropose' } as ConsensusEvents['NewRoundStep']

function setup(opts = {}) {
  const events = new TypedEmitter<ConsensusEvents>()
  const subs = new CometEventSubscriptions(events, { noticeRetryMs: 1, ...opts })
  return { events, subs }
}

describe('CometEventSubscriptions', () => {
  it('pushes matching events with the request id, the original query, data and the events map', async () => {
    const { events, subs } = setup()
    const c = new FakeClient()
    const query = "tm.event='Tx' AND ethereum.recipient='0xABCDEF0123456789ABCDEF0123456789ABCDEF01'"
    await subs.subscribe(c, 'sub-1', query)
    events.emit('NewRoundStep', roundStep)
    events.emit('Tx', txEvent)
    expect(c.sent).toHaveLength(1)
    expect(c.sent[0]).toEqual({
      jsonrpc: '2.0',
      id: 'sub-1',
      result: {
        query,
        data: {
          type: 'tendermint/event/Tx',
          value: {
            TxResult: { height: '7', index: undefined, tx: 'aGVsbG8=', result: expect.objectContaining({ code: 0, gas_used: '21000' }) },
          },
        },
        events: {
          'ethereum.recipient': ['0xabcdef0123456789abcdef0123456789abcdef01'],
          'tm.event': ['Tx'],
          'tx.hash': [bytesToUpperHex(hashTx(tx))],
          'tx.height': ['7'],
        },
      },
    })
  })

  it('encodes round-state events as tendermint/event/RoundState', async () => {
    const { events, subs } = setup()
    const c = new FakeClient()
    await subs.subscribe(c, 1, "tm.event='NewRoundStep'")
    events.emit('NewRoundStep', roundStep)
    expect(c.sent[0]!.result).toEqual({
      query: "tm.event='NewRoundStep'",
      data: { type: 'tendermint/event/RoundState', value: { height: '3', round: 0, step: 'RoundStepPropose' } },
      events: { 'tm.event': ['NewRoundStep'] },
    })
  })

  it('enforces limits and answers with CometBFT texts', async () => {
    const { subs } = setup({ maxSubscriptionClients: 1, maxSubscriptionsPerClient: 2 })
    const a = new FakeClient('a:1')
    await subs.subscribe(a, 1, "tm.event='NewBlock'")
    await expect(subs.subscribe(a, 2, "tm.event = 'NewBlock'")).rejects.toThrow('already subscribed')
    await subs.subscribe(a, 3, "tm.event='Vote'")
    await expect(subs.subscribe(a, 4, "tm.event='Tx'")).rejects.toThrow('max_subscriptions_per_client 2 reached')
    await expect(subs.subscribe(new FakeClient('b:1'), 1, "tm.event='Tx'")).rejects.toThrow('max_subscription_clients 1 reached')
    const badQuery = await subs.subscribe(a, 5, "tm.event=='Tx'").catch((err: unknown) => err)
    expect(renderCometError(5, badQuery).error).toMatchObject({
      code: -32603,
      data: expect.stringMatching(/^failed to parse query: offset 9:/),
    })
    await expect(subs.unsubscribe(a, "tm.event='Tx'")).rejects.toThrow('subscription not found')
    await subs.unsubscribe(a, "tm.event='NewBlock'")
    expect(subs.stats()).toEqual({ clients: 1, subscriptions: 1 })
    await subs.unsubscribeAll(a)
    expect(subs.stats()).toEqual({ clients: 0, subscriptions: 0 })
    await expect(subs.unsubscribeAll(a)).rejects.toThrow('subscription not found')
  })

  it('cancels a slow client subscription with -32000 instead of buffering', async () => {
    const { events, subs } = setup()
    const c = new FakeClient()
    await subs.subscribe(c, 9, "tm.event='NewRoundStep'")
    await subs.subscribe(c, 10, "tm.event='Tx'")
    c.room = 1
    events.emit('NewRoundStep', roundStep)
    events.emit('NewRoundStep', roundStep) // buffer full: canceled
    expect(subs.stats()).toEqual({ clients: 1, subscriptions: 1 })
    c.room = Infinity
    // The refused cancellation notice is sent again once the buffer has room.
    const notice = await c.nextSent()
    expect(notice).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32000, message: 'Server error', data: 'subscription was canceled (reason: slow client)' },
    })
    events.emit('NewRoundStep', roundStep)
    expect(c.sent.filter((r) => r.id === 9)).toHaveLength(2)
  })

  it('drops closed clients and tells subscribers when the node exits', async () => {
    const { events, subs } = setup()
    const gone = new FakeClient('gone:1')
    const stay = new FakeClient('stay:1')
    await subs.subscribe(gone, 1, "tm.event='NewRoundStep'")
    await subs.subscribe(stay, 1, "tm.event='NewRoundStep'")
    gone.closed = true
    events.emit('NewRoundStep', roundStep)
    expect(subs.stats().clients).toBe(1)
    subs.close()
    expect(stay.sent.at(-1)!.error!.data).toBe('subscription was canceled (reason: CometBFT exited)')
    expect(events.listenerCount('NewRoundStep')).toBe(0)
  })
})
