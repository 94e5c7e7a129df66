/**
 * The @ethereumjs internals nodectl patches or reads, checked against the installed packages. Each patch
 * falls back to the library's own code when its internal is missing, so an upgrade would only make the
 * node slower (or, for the validator-admin and tx-hash patches, wrong) without failing a test; this file
 * fails instead, naming the patch and the member to re-check. Every patch lives in
 * src/evm/state/ethereumjs-patches.ts and every other read of an internal in ethereumjs-run-state.ts:
 * - speed-ups: Interpreter `_getValidJumpDestinations`, Common `isActivatedEIP` / `_activatedEIPsCache`,
 *   MerkleStateManager `getAccount` / `putStorage` and its `_caches`, MerklePatriciaTrie `get` over
 *   `appliedKey` / `lookupNode` / `DEBUG` and its 'Missing node in DB' error, and `lookupNode` over
 *   `_db.get` / `_getDbKey` (the decoded-node cache); the batched flush: MerkleStateManager `flush`,
 *   `_trie`, `_storageTries`, `_prefixCodeHashes`, `_getCodeDB`, `modifyAccountFields`, the caches'
 *   flush items, MerklePatriciaTrie `_opts`, `EMPTY_TRIE_ROOT`, `root()` and `_db.batch`;
 * - the flat state: MerkleStateManager `_getStorageTrie` / `keccakFunction` (watchStorageTries), and what the
 *   caches' `flush` hands out (flat-diff.ts);
 * - getOpcodeTable: the EVM's `_opcodeMap` entries (state-copy.ts deadlines, tracing/opcode-probes.ts);
 * - wrapExecuteCall / addCustomPrecompile: EVM `_executeCall`, `_customPrecompiles`, `_precompiles`
 *   (validator-admin.ts);
 * - seedTxHash / seedTxSenderPublicKey: the transaction's `cache.hash` and `cache.senderPubKey` (tx.ts);
 * - assembleFeeMarketTx: the own properties `new FeeMarket1559Tx` sets, their order and values (tx.ts);
 * - ethereumjs-run-state.ts (the tracing probes): the interpreter's RunState as opcode handlers get it,
 *   Stack `_store` / `_len`, Memory `_store`, Interpreter `_result.logs` and `getAddress()`.
 * The edits of installed files (patches/) are checked by dependency-patches.test.ts.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { createFeeMarket1559Tx, createLegacyTx, createTxFromRLP } from '@ethereumjs/tx'
import { AccountCache, Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import { createVM } from '@ethereumjs/vm'
import { describe, expect, it } from 'vitest'
import { Account, createAddressFromString } from '@ethereumjs/util'
import { getCommon, txCommonOf } from '../../../../src/evm/common.js'
import { assembleFeeMarketTx, getOpcodeTable, watchStorageTries } from '../../../../src/evm/state/ethereumjs-patches.js'
import { readFeeMarketTx } from '../../../../src/evm/txs/fee-market-fields.js'
import { recordFlatDiff } from '../../../../src/evm/state/flat-diff.js'
import { keccak256 } from '../../../../src/crypto/index.js'
import {
  frameAddress,
  lastLog,
  memoryBuffer,
  readStack,
  type RunState,
  type RunStateLog,
} from '../../../../src/evm/state/ethereumjs-run-state.js'

const ROOT = resolve(import.meta.dirname, '../../../..')
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }
const pinned = Object.entries(pkg.dependencies ?? {}).filter(([name]) => name.startsWith('@ethereumjs/'))
const require = createRequire(resolve(ROOT, 'package.json'))

function installedVersion(name: string): string {
  const entry = require.resolve(name)
  const dir = entry.slice(0, entry.indexOf(`/node_modules/${name}/`) + `/node_modules/${name}/`.length)
  return (JSON.parse(readFileSync(resolve(dir, 'package.json'), 'utf8')) as { version: string }).version
}

const JUMP = 0x56
const SSTORE = 0x55
const CALL = 0xf1
const LOG0 = 0xa0

describe('@ethereumjs internals that nodectl patches', () => {
  it('are the pinned versions', () => {
    expect(pinned.length, 'package.json pins no @ethereumjs package').toBeGreaterThan(0)
    for (const [name, range] of pinned) {
      expect(range, `${name} must be pinned to an exact version: the patches of evm/ depend on its internals`).toMatch(/^\d+\.\d+\.\d+$/)
      expect(
        installedVersion(name),
        `${name}: installed version differs from the pinned one; re-check every patch listed in this file`,
      ).toBe(range)
    }
  })

  it('ethereumjs-patches jump-analysis cache: Interpreter.prototype._getValidJumpDestinations(code)', async () => {
    const mod = (await import(new URL('./interpreter.js', import.meta.resolve('@ethereumjs/evm')).href)) as {
      Interpreter?: { prototype: Record<string, unknown> }
    }
    const fn = mod.Interpreter?.prototype._getValidJumpDestinations
    expect(typeof fn, 'ethereumjs-patches installJumpAnalysisCache: Interpreter._getValidJumpDestinations is gone').toBe('function')
    expect(
      (fn as (code: Uint8Array) => unknown).length,
      'ethereumjs-patches installJumpAnalysisCache: _getValidJumpDestinations(code) changed arity',
    ).toBe(1)
  })

  it('ethereumjs-patches isActivatedEIP table: Common._activatedEIPsCache and isActivatedEIP(eip)', () => {
    const common = getCommon(9000n).copy()
    const internal = common as unknown as { _activatedEIPsCache?: unknown }
    expect(
      Array.isArray(internal._activatedEIPsCache),
      'ethereumjs-patches installFastIsActivatedEIP: Common._activatedEIPsCache is no longer an array',
    ).toBe(true)
    expect(
      typeof Object.getPrototypeOf(common).isActivatedEIP,
      'ethereumjs-patches installFastIsActivatedEIP: Common.prototype.isActivatedEIP is gone',
    ).toBe('function')
    const eips = internal._activatedEIPsCache as number[]
    expect(
      eips.every((eip) => common.isActivatedEIP(eip)),
      'ethereumjs-patches installFastIsActivatedEIP: _activatedEIPsCache no longer lists the activated EIPs',
    ).toBe(true)
  })

  it('ethereumjs-patches account memo and storage-write fix: MerkleStateManager getAccount, putStorage, _caches', () => {
    const proto = MerkleStateManager.prototype as unknown as Record<string, unknown>
    expect(typeof proto.getAccount, 'ethereumjs-patches installAccountEntries: MerkleStateManager.prototype.getAccount is gone').toBe(
      'function',
    )
    expect(typeof proto.putStorage, 'ethereumjs-patches installStorageWriteFix: MerkleStateManager.prototype.putStorage is gone').toBe(
      'function',
    )
    const sm = new MerkleStateManager({ caches: new Caches() }) as unknown as {
      _caches?: { account?: Record<string, unknown>; storage?: Record<string, unknown> }
    }
    const accounts = sm._caches?.account
    for (const member of ['get', 'put', '_saveCachePreState'])
      expect(typeof accounts?.[member], `ethereumjs-patches installAccountEntries: AccountCache.${member} is gone`).toBe('function')
    expect(
      typeof accounts?._stats === 'object' && (typeof accounts._orderedMapCache === 'object' || typeof accounts._lruCache === 'object'),
      'ethereumjs-patches installAccountEntries: AccountCache._stats and _orderedMapCache or _lruCache are gone',
    ).toBe(true)
    expect(AccountCache.prototype.put.length, 'ethereumjs-patches installAccountEntries: AccountCache.put(address, account, partial)').toBe(
      2,
    )
    expect(
      typeof sm._caches?.storage?.put,
      'ethereumjs-patches installStorageWriteFix: MerkleStateManager._caches.storage.put is gone',
    ).toBe('function')
  })

  it('ethereumjs-patches watchStorageTries and flat-diff: MerkleStateManager _getStorageTrie(address), keccakFunction, caches flush items', async () => {
    const caches = new Caches({ account: { size: 100, type: 'ordered_map' }, storage: { size: 100, type: 'ordered_map' } })
    const sm = new MerkleStateManager({ caches })
    const seen: string[] = []
    watchStorageTries(sm, (_trie, addressHash) => seen.push(Buffer.from(addressHash).toString('hex')))
    const diff = recordFlatDiff(sm, caches)
    const address = createAddressFromString(`0x${'42'.repeat(20)}`)
    await sm.checkpoint()
    await sm.putAccount(address, new Account(1n, 2n))
    await sm.putStorage(address, new Uint8Array(32).fill(1), Uint8Array.of(5))
    await sm.commit()
    expect(seen, 'ethereumjs-patches watchStorageTries: the flush no longer writes slots through _getStorageTrie(address)').toEqual([
      Buffer.from(keccak256(address.bytes)).toString('hex'),
    ])
    const addressHex = '42'.repeat(20)
    expect(diff.accounts.get(addressHex), 'flat-diff: AccountCache.flush items are no longer [address, {accountRLP}]').toEqual(
      new Account(1n, 2n, (await sm.getAccount(address))!.storageRoot).serialize(),
    )
    expect(
      diff.slots.get(addressHex)?.get('01'.repeat(32)),
      'flat-diff: StorageCache.flush items are no longer [address, slot, RLP value]',
    ).toEqual(Uint8Array.of(5))
  })

  it('ethereumjs-patches batched flush: MerkleStateManager flush and the members it writes through', async () => {
    const sm = new MerkleStateManager({ caches: new Caches() }) as unknown as Record<string, unknown>
    for (const name of ['flush', '_getCodeDB', '_getStorageTrie', 'modifyAccountFields', 'getAccount', 'putAccount', 'keccakFunction'])
      expect(typeof sm[name], `ethereumjs-patches installBatchedFlush: MerkleStateManager.${name} is gone`).toBe('function')
    expect(typeof sm._storageTries, 'ethereumjs-patches installBatchedFlush: MerkleStateManager._storageTries is gone').toBe('object')
    expect(typeof sm._prefixCodeHashes, 'ethereumjs-patches installBatchedFlush: MerkleStateManager._prefixCodeHashes is gone').toBe(
      'boolean',
    )
    const code = (sm._caches as { code?: { flush?: unknown } } | undefined)?.code
    expect(typeof code?.flush, 'ethereumjs-patches installBatchedFlush: CodeCache.flush is gone').toBe('function')
    const trie = sm._trie as Record<string, unknown>
    expect(trie, 'ethereumjs-patches installBatchedFlush: MerkleStateManager._trie is gone').toBeInstanceOf(MerklePatriciaTrie)
    expect(typeof trie._opts, 'ethereumjs-patches installBatchedFlush: MerklePatriciaTrie._opts is gone').toBe('object')
    expect(trie.EMPTY_TRIE_ROOT, 'ethereumjs-patches installBatchedFlush: MerklePatriciaTrie.EMPTY_TRIE_ROOT is gone').toBeInstanceOf(
      Uint8Array,
    )
    expect(
      typeof (trie._db as { batch?: unknown }).batch,
      'ethereumjs-patches installBatchedFlush: MerklePatriciaTrie._db.batch is gone',
    ).toBe('function')
    // The code flush's items: [address, { code }].
    const address = createAddressFromString(`0x${'43'.repeat(20)}`)
    const typed = sm as unknown as MerkleStateManager
    await typed.putAccount(address, new Account())
    await typed.putCode(address, Uint8Array.of(0x60, 0x00))
    const items = (sm._caches as { code: { flush(): [string, { code?: Uint8Array }][] } }).code.flush()
    expect(items, 'ethereumjs-patches installBatchedFlush: CodeCache.flush items are no longer [address, {code}]').toEqual([
      ['43'.repeat(20), expect.objectContaining({ code: Uint8Array.of(0x60, 0x00) })],
    ])
  })

  it('ethereumjs-patches fast trie get: MerklePatriciaTrie get(key, throwIfMissing), appliedKey, lookupNode, DEBUG', async () => {
    const trie = new MerklePatriciaTrie() as unknown as Record<string, unknown>
    for (const name of ['get', 'appliedKey', 'lookupNode', 'findPath']) {
      expect(typeof trie[name], `ethereumjs-patches installFastTrieGet: MerklePatriciaTrie.${name} is gone`).toBe('function')
    }
    expect(typeof trie.DEBUG, 'ethereumjs-patches installFastTrieGet: MerklePatriciaTrie.DEBUG is gone').toBe('boolean')
    const lookup = trie.lookupNode as (node: Uint8Array) => Promise<unknown>
    await expect(
      lookup.call(trie, new Uint8Array(32).fill(1)),
      "ethereumjs-patches installFastTrieGet: lookupNode's missing-node error changed",
    ).rejects.toThrow(/^Missing node in DB$/)
  })

  it('ethereumjs-patches decoded-node cache: MerklePatriciaTrie _db.get(key) and _getDbKey(node)', async () => {
    const trie = new MerklePatriciaTrie()
    const internals = trie as unknown as { _db?: { get?: unknown }; _getDbKey?: unknown }
    expect(typeof internals._db?.get, 'ethereumjs-patches installDecodedNodeCache: MerklePatriciaTrie._db.get is gone').toBe('function')
    expect(typeof internals._getDbKey, 'ethereumjs-patches installDecodedNodeCache: MerklePatriciaTrie._getDbKey is gone').toBe('function')
    await trie.put(Uint8Array.of(1), Uint8Array.of(2))
    const key = (internals._getDbKey as (node: Uint8Array) => Uint8Array).call(trie, trie.root())
    const stored = await (internals._db as { get(key: Uint8Array): Promise<unknown> }).get(key)
    expect(stored, "ethereumjs-patches installDecodedNodeCache: _db.get(_getDbKey(hash)) no longer gives the node's bytes").toBeInstanceOf(
      Uint8Array,
    )
  })

  it('state-copy deadline and tracing opcode probes: EVM._opcodeMap entries {opHandler, gasHandler, opcodeInfo}', async () => {
    const vm = await createVM({ common: getCommon(9000n).copy() })
    const map = (vm.evm as unknown as { _opcodeMap?: unknown })._opcodeMap as
      | ({ opHandler?: unknown; gasHandler?: unknown; opcodeInfo?: { isAsync?: unknown; dynamicGas?: unknown } } | undefined)[]
      | undefined
    expect(Array.isArray(map), 'state-copy installDeadline / opcode-probes: EVM._opcodeMap is no longer an array').toBe(true)
    for (const op of [JUMP, SSTORE, CALL]) {
      const entry = map![op]
      expect(
        typeof entry?.opHandler,
        `state-copy installDeadline / opcode-probes: _opcodeMap[0x${op.toString(16)}].opHandler is gone`,
      ).toBe('function')
      expect(typeof entry?.opcodeInfo?.isAsync, `opcode-probes: _opcodeMap[0x${op.toString(16)}].opcodeInfo.isAsync is gone`).toBe(
        'boolean',
      )
      expect(typeof entry?.opcodeInfo?.dynamicGas, `opcode-probes: _opcodeMap[0x${op.toString(16)}].opcodeInfo.dynamicGas is gone`).toBe(
        'boolean',
      )
    }
    expect(typeof map![SSTORE]?.gasHandler, 'opcode-probes: _opcodeMap[0x55].gasHandler (dynamic gas) is gone').toBe('function')
  })

  it('validator-admin: EVM._executeCall(message), _customPrecompiles, _precompiles', async () => {
    const vm = await createVM({ common: getCommon(9000n).copy() })
    const evm = vm.evm as unknown as Record<string, unknown>
    expect(typeof evm._executeCall, 'validator-admin installValidatorAdmin: EVM._executeCall is gone').toBe('function')
    expect(
      (evm._executeCall as (message: unknown) => unknown).length,
      'validator-admin installValidatorAdmin: EVM._executeCall(message) changed arity',
    ).toBe(1)
    expect(evm._precompiles, 'validator-admin installValidatorAdmin: EVM._precompiles is no longer a Map').toBeInstanceOf(Map)
    expect('_customPrecompiles' in evm, 'validator-admin installValidatorAdmin: EVM._customPrecompiles is gone').toBe(true)
  })

  it("tx hash seed: a frozen transaction's hash() answers from cache.hash", () => {
    const tx = createLegacyTx({ nonce: 0n, gasLimit: 21_000n, gasPrice: 1n }, { common: getCommon(9000n) }).sign(new Uint8Array(32).fill(1))
    const cache = (tx as unknown as { cache?: { hash?: Uint8Array } }).cache
    expect(typeof cache, 'tx.ts decodeTx hash seed: the transaction has no `cache` object').toBe('object')
    const seeded = new Uint8Array(32).fill(7)
    cache!.hash = seeded
    const hash = tx.hash()
    expect(hash, 'tx.ts decodeTx hash seed: Transaction.hash() no longer answers from cache.hash').toBe(seeded)
  })

  it('tx sender seed: getSenderPublicKey() answers from cache.senderPubKey', () => {
    const tx = createLegacyTx({ nonce: 0n, gasLimit: 21_000n, gasPrice: 1n }, { common: getCommon(9000n) }).sign(new Uint8Array(32).fill(1))
    const cache = (tx as unknown as { cache?: { senderPubKey?: Uint8Array } }).cache
    const seeded = new Uint8Array(64).fill(9)
    cache!.senderPubKey = seeded
    expect(tx.getSenderPublicKey(), 'tx.ts sender seed: getSenderPublicKey() no longer answers from cache.senderPubKey').toBe(seeded)
  })

  it('fee-market assembly: the object new FeeMarket1559Tx makes, property by property, in its order', () => {
    const common = txCommonOf(getCommon(31337n))
    const key = new Uint8Array(32).fill(1)
    for (const accessList of [[], [[new Uint8Array(20).fill(2), [new Uint8Array(32).fill(3)]]]] as [Uint8Array, Uint8Array[]][][]) {
      for (const nonce of [0n, 5n]) {
        const raw = createFeeMarket1559Tx(
          {
            chainId: 31337n,
            nonce,
            maxPriorityFeePerGas: 1n,
            maxFeePerGas: 10n ** 10n,
            gasLimit: 50_000n,
            to: new Uint8Array(20).fill(9),
            value: nonce,
            data: Uint8Array.of(0, 1),
            accessList,
          },
          { common },
        )
          .sign(key)
          .serialize()
        const options = { common, freeze: false, allowUnlimitedInitCodeSize: false }
        const theirs = createTxFromRLP(raw, options)
        const ours = assembleFeeMarketTx(readFeeMarketTx(raw, 31337n)!, options)
        expect(ours, 'ethereumjs-patches assembleFeeMarketTx: FeeMarket1559Tx sets other properties').toBeDefined()
        expect(Object.getPrototypeOf(ours)).toBe(Object.getPrototypeOf(theirs))
        expect(Object.keys(ours!), 'ethereumjs-patches assembleFeeMarketTx: property order').toEqual(Object.keys(theirs))
        for (const name of Object.keys(theirs))
          expect((ours as never)[name], `assembleFeeMarketTx: ${name}`).toEqual((theirs as never)[name])
        expect(ours!.common).not.toBe(common)
        expect(ours!.serialize()).toEqual(raw)
        expect(ours!.getMessageToVerifySignature()).toEqual(theirs.getMessageToVerifySignature())
      }
    }
  })

  it('ethereumjs-run-state (tracing): the RunState opcode handlers get, Stack _store/_len, Memory _store, Interpreter _result.logs and getAddress', async () => {
    const vm = await createVM({ common: getCommon(9000n).copy() })
    const table = getOpcodeTable<RunState>(vm.evm)!
    const seen: { runState: RunState; stack: bigint[]; memory: Uint8Array; log: RunStateLog | undefined; address: Uint8Array }[] = []
    const log0 = table[LOG0]!
    const original = log0.opHandler!
    log0.opHandler = (runState, common) => {
      const stack = readStack(runState)
      expect(stack, 'ethereumjs-run-state readStack: not the stack bottom first').toEqual(
        runState.stack.peek(runState.stack.length).reverse(),
      )
      const result = original(runState, common)
      seen.push({
        runState,
        stack,
        memory: memoryBuffer(runState).slice(0, 32),
        log: lastLog(runState),
        address: frameAddress(runState).bytes,
      })
      return result
    }
    // PUSH1 0x2a PUSH1 0 MSTORE, PUSH1 32 PUSH1 0 LOG0, STOP
    const code = Uint8Array.of(0x60, 0x2a, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xa0, 0x00)
    const address = createAddressFromString(`0x${'12'.repeat(20)}`)
    await vm.stateManager.putAccount(address, new Account())
    await vm.stateManager.putCode(address, code)
    const { execResult } = await vm.evm.runCall({ to: address, gasLimit: 100_000n })
    expect(execResult.exceptionError, 'ethereumjs-run-state: the probe contract failed').toBeUndefined()
    expect(seen.length, 'ethereumjs-run-state: _opcodeMap[LOG0].opHandler was not called with the RunState').toBe(1)
    const [{ runState, stack, memory, log, address: frame }] = seen as [(typeof seen)[0]]
    expect(stack, 'ethereumjs-run-state readStack: Stack._store / _len changed').toEqual([0x20n, 0n])
    expect(memory[31], 'ethereumjs-run-state memoryBuffer: Memory._store changed').toBe(0x2a)
    expect(log?.[0], 'ethereumjs-run-state lastLog: Interpreter._result.logs changed').toEqual(address.bytes)
    expect(log?.[2]?.[31], 'ethereumjs-run-state lastLog: a log is no longer [address, topics, data]').toBe(0x2a)
    expect(frame, 'ethereumjs-run-state frameAddress: Interpreter.getAddress() changed').toEqual(address.bytes)
    expect(readStack(runState), 'ethereumjs-run-state readStack: Stack._store / _len changed').toEqual([])
    const fields = {
      programCounter: 'number',
      code: 'object',
      gasLeft: 'bigint',
      gasRefund: 'bigint',
      memoryWordCount: 'bigint',
      returnBytes: 'object',
    } as const
    for (const [name, type] of Object.entries(fields))
      expect(typeof (runState as unknown as Record<string, unknown>)[name], `ethereumjs-run-state: RunState.${name} changed`).toBe(type)
    for (const name of ['address', 'caller', 'callValue', 'callData', 'depth'])
      expect(name in runState.env, `ethereumjs-run-state: RunState.env.${name} is gone`).toBe(true)
    expect(typeof runState.memory.read, 'ethereumjs-run-state: RunState.memory.read is gone').toBe('function')
  })
})
