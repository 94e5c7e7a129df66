import { describe, expect, it } from 'vitest'
import type { AbciRequest, AbciResponse } from '../../../src/abci/wire/messages.js'
import { decodeRequest, encodeRequest } from '../../../src/abci/wire/request-codec.js'
import { decodeResponse, encodeResponse } from '../../../src/abci/wire/response-codec.js'
import { encodeFrame } from '../../../src/abci/wire/frame.js'
import { bytesToHex, hexToBytes } from '../../../src/primitives/hex.js'
import { REQUESTS, RESPONSES } from './fixtures.js'

const frameHex = (body: Uint8Array): string => bytesToHex(encodeFrame(body)).slice(2)

describe('ABCI codec: the bytes CometBFT v0.38 sends and expects', () => {
  it('encodes and decodes Request echo, flush and the handshake info', () => {
    const cases: [AbciRequest, string][] = [
      [{ method: 'echo', value: { message: 'hi' } }, '060a040a026869'],
      [{ method: 'flush', value: {} }, '021200'],
      [
        { method: 'info', value: { version: '0.38.25', blockVersion: 11n, p2pVersion: 8n, abciVersion: '2.0.0' } },
        '161a140a07302e33382e3235100b18082205322e302e30',
      ],
    ]
    for (const [req, hex] of cases) {
      expect(frameHex(encodeRequest(req))).toBe(hex)
      expect(decodeRequest(hexToBytes('0x' + hex).subarray(1))).toEqual(req)
    }
  })

  it('encodes and decodes Response flush and commit', () => {
    const cases: [AbciResponse, string][] = [
      [{ method: 'flush', value: {} }, '021a00'],
      [{ method: 'commit', value: { retainHeight: 0 } }, '026200'],
    ]
    for (const [res, hex] of cases) {
      expect(frameHex(encodeResponse(res))).toBe(hex)
      expect(decodeResponse(hexToBytes('0x' + hex).subarray(1))).toEqual(res)
    }
  })

  it('round-trips every request with every field set', () => {
    for (const [method, value] of Object.entries(REQUESTS)) {
      const req = { method, value } as AbciRequest
      expect(decodeRequest(encodeRequest(req)), method).toEqual(req)
    }
  })

  it('round-trips every response with every field set', () => {
    for (const [method, value] of Object.entries(RESPONSES)) {
      const res = { method, value } as AbciResponse
      expect(decodeResponse(encodeResponse(res)), method).toEqual(res)
    }
  })

  it('skips unknown fields and takes the last oneof case', () => {
    const unknownThenEcho = hexToBytes('0x' + 'f80101' + '0a040a026869' + '1200')
    expect(decodeRequest(unknownThenEcho)).toEqual({ method: 'flush', value: {} })
  })

  it('refuses a message without a known method and keys of a type the application cannot hold', () => {
    expect(() => decodeRequest(hexToBytes('0x2200'))).toThrow('Request without a known method')
    // Request{init_chain{validators: [{pub_key: {secp256k1: aabb}}]}}
    const initChain = '2a08' + '2206' + '0a04' + '1202aabb'
    expect(() => decodeRequest(hexToBytes('0x' + initChain))).toThrow('secp256k1')
  })
})
