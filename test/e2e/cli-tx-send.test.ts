/**
 * `nodectl tx send` (and `tx set-validator --from <name>`) against a real dev node, signing with keys
 * from the node home's key store: the passphrase sources (file, NODECTL_PASSWORD, none without a
 * terminal), a wrong passphrase, value units, contract creation, and a failed tx with its revert reason.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { Interface, Wallet } from 'ethers'
import { compileContracts } from '../helpers/solidity.js'
import { ed25519FromSeed } from '../../src/crypto/index.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { LIGHT_SCRYPT } from '../../src/keystore/key-file.js'
import { KeyStore } from '../../src/keystore/key-store.js'
import { bytesToBase64, hexToBytes } from '../../src/primitives/hex.js'
import TxSend, { type TxSendResult } from '../../src/commands/tx/send.js'
import { bumpFee } from '../../src/cli/tx-fees.js'
import TxSetValidator, { type SetValidatorResult } from '../../src/commands/tx/set-validator.js'
import type { ReceiptJson } from '../../src/api/eth/format.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { jsonOf, runCli, runCliOnTerminal } from '../helpers/cli.js'

const [ADMIN, ALICE] = devAccounts(2)
const ETHER = 10n ** 18n

describe('nodectl tx send against a dev node', () => {
  let t: TestNode
  let pwFile: string
  let wrongPwFile: string
  let keystoreDir: string
  const { Store } = compileContracts('Store.sol')
  const store = new Interface(Store!.abi as never)

  /** The flags every run shares: the node, and the key store of its home. */
  const common = (): string[] => ['--node', t.url, '--home', t.home]
  const balanceOf = async (address: string): Promise<bigint> =>
    BigInt((await rpc<string>(t.url, 'eth_getBalance', [address, 'latest'])).result!)
  const pendingNonce = async (address: string): Promise<bigint> =>
    BigInt((await rpc<string>(t.url, 'eth_getTransactionCount', [address, 'pending'])).result!)

  beforeAll(async () => {
    t = await startTestNode()
    keystoreDir = join(t.home, 'keystore')
    const keys = new KeyStore({ dir: keystoreDir, scrypt: LIGHT_SCRYPT })
    // the node writes the dev accounts' key files in the background: replace them only once they are there
    await t.node.components.accounts.whenDevKeysSaved()
    for (const [account, name] of [
      [ALICE!, 'alice'],
      [ADMIN!, 'admin'],
    ] as const) {
      // a dev home may already hold the dev accounts under another passphrase: replace them with ours
      if (await keys.lookup(account.address)) await keys.delete(account.address)
      await keys.importKey(hexToBytes(account.privateKey), 'pw', { name })
    }
    pwFile = join(t.home, 'pw.txt')
    wrongPwFile = join(t.home, 'wrong-pw.txt')
    await writeFile(pwFile, 'pw\n')
    await writeFile(wrongPwFile, 'not the passphrase\n')
  })
  afterAll(async () => {
    await t?.destroy()
  })
  afterEach(() => {
    vi.unstubAllEnvs()
  })

  it('sends 1.5 ether from a key-store name with --password-file and waits for the receipt', async () => {
    const to = Wallet.createRandom().address
    const before = await balanceOf(to)
    const run = await runCli(TxSend, [
      '--from',
      'alice',
      '--to',
      to,
      '--value',
      '1.5ether',
      '--wait',
      '--json',
      '--password-file',
      pwFile,
      ...common(),
    ])
    expect(run.error).toBeUndefined()
    const result = jsonOf(run) as TxSendResult
    expect(result).toMatchObject({
      from: ALICE!.address,
      to,
      value: ((15n * ETHER) / 10n).toString(),
      status: 1,
      gasUsed: '21000',
      contractAddress: null,
      revertReason: null,
      type: 'eip1559',
    })
    expect(result.hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await balanceOf(to)).toBe(before + (15n * ETHER) / 10n)
  })

  it('takes --to as a key-store name (dev2, as a --dev home names the third dev account)', async () => {
    const dev2 = devAccounts(3)[2]!.address
    const run = await runCli(TxSend, [
      '--from',
      'alice',
      '--to',
      'dev2',
      '--value',
      '1wei',
      '--wait',
      '--json',
      '--password-file',
      pwFile,
      ...common(),
    ])
    expect(run.error).toBeUndefined()
    expect(jsonOf<TxSendResult>(run)).toMatchObject({ from: ALICE!.address, to: dev2, value: '1', status: 1 })
  })

  it('takes --from as an address in lower case, the passphrase from NODECTL_PASSWORD, and prints the hash', async () => {
    vi.stubEnv('NODECTL_PASSWORD', 'pw')
    const to = Wallet.createRandom().address
    const run = await runCli(TxSend, [
      '--from',
      ALICE!.address.toLowerCase(),
      '--to',
      to,
      '--value',
      '1000gwei',
      '--keystore-dir',
      keystoreDir,
      '--node',
      t.url,
    ])
    expect(run.error).toBeUndefined()
    expect(run.stdout).toEqual([run.result!.hash])
    const receipt = await waitFor(
      async () => (await rpc<ReceiptJson>(t.url, 'eth_getTransactionReceipt', [run.result!.hash])).result,
      20_000,
      'receipt',
    )
    expect(receipt.status).toBe('0x1')
    expect(await balanceOf(to)).toBe(1000n * 10n ** 9n)
  })

  it("refuses a wrong passphrase with geth's message and sends nothing", async () => {
    const nonce = await pendingNonce(ALICE!.address)
    const run = await runCli(TxSend, [
      '--from',
      'alice',
      '--to',
      ADMIN!.address,
      '--value',
      '1',
      '--password-file',
      wrongPwFile,
      ...common(),
    ])
    expect(run.exitCode).toBe(1)
    expect(run.error?.message).toBe('could not decrypt key with given password')
    expect(await pendingNonce(ALICE!.address)).toBe(nonce)
  })

  it('fails at once without a terminal and without a passphrase source, naming both', async () => {
    vi.stubEnv('NODECTL_PASSWORD', undefined)
    const saved = Object.getOwnPropertyDescriptor(process.stdin, 'isTTY')
    Object.defineProperty(process.stdin, 'isTTY', { value: undefined, configurable: true })
    try {
      const started = Date.now()
      const run = await runCli(TxSend, ['--from', 'alice', '--to', ADMIN!.address, '--value', '1', ...common()])
      expect(Date.now() - started).toBeLessThan(5_000)
      expect(run.exitCode).toBe(1)
      expect(run.error?.message).toMatch(/--password-file/)
      expect(run.error?.message).toMatch(/NODECTL_PASSWORD/)
    } finally {
      if (saved) Object.defineProperty(process.stdin, 'isTTY', saved)
      else delete (process.stdin as { isTTY?: boolean }).isTTY
    }
  })

  it('rejects bad --value amounts as a usage error (exit 2) in one line naming --value, before any key is read', async () => {
    for (const value of ['1.5wei', 'abc', '1.0000000001gwei', '-1', '1.5eth', '0.0000000000000000001ether']) {
      const run = await runCli(TxSend, ['--from', 'alice', '--to', ADMIN!.address, `--value=${value}`, ...common()])
      expect(run.exitCode, value).toBe(2)
      expect(run.error?.message, value).toMatch(/^invalid --value ".*": /)
      expect(run.error?.message, value).not.toContain('\n')
    }
    const badTo = await runCli(TxSend, ['--from', 'alice', '--to', '0x1234', ...common()])
    expect(badTo.error?.message).toMatch(/^invalid --to "0x1234"/)
    const unknown = await runCli(TxSend, ['--from', 'bob', '--to', ADMIN!.address, ...common()])
    expect(unknown.error?.message).toMatch(/^invalid --from "bob": not a name or address in the key store/)
  })

  it('creates a contract from --data, and a reverted call exits 1 with the revert reason', async () => {
    const code = Store!.bytecode + store.encodeDeploy([7n]).slice(2)
    const created = jsonOf(
      await runCli(TxSend, ['--from', 'alice', '--data', code, '--wait', '--json', '--password-file', pwFile, ...common()]),
    ) as TxSendResult
    expect(created).toMatchObject({ status: 1, to: null })
    expect(created.contractAddress).toMatch(/^0x[0-9a-fA-F]{40}$/)
    const address = created.contractAddress!
    expect((await rpc<string>(t.url, 'eth_getCode', [address, 'latest'])).result!.length).toBeGreaterThan(2)

    // `set(13, …)` reverts with "unlucky number"; --gas skips the estimate, which would refuse it up front
    const data = store.encodeFunctionData('set', [13n, 'x'])
    const human = await runCliOnTerminal(TxSend, [
      '--from',
      'alice',
      '--to',
      address,
      '--data',
      data,
      '--gas',
      '200000',
      '--wait',
      '--password-file',
      pwFile,
      ...common(),
    ])
    expect(human.exitCode).toBe(1)
    expect(human.error?.message).toMatch(/^transaction 0x[0-9a-f]{64} failed in block \d+: unlucky number$/)
    const table = human.stdout.join('\n')
    expect(table).toMatch(/status\s*│\s*failed/)
    expect(table).toContain('unlucky number')

    const json = await runCli(TxSend, [
      '--from',
      'alice',
      '--to',
      address,
      '--data',
      data,
      '--gas',
      '200000',
      '--wait',
      '--json',
      '--password-file',
      pwFile,
      ...common(),
    ])
    expect(json.exitCode).toBe(1)
    expect(jsonOf(json)).toMatchObject({ status: 0, revertReason: 'unlucky number', contractAddress: null })

    // without --gas the node's estimate refuses it: one line with its code and reason, nothing sent
    const nonce = await pendingNonce(ALICE!.address)
    const estimated = await runCli(TxSend, ['--from', 'alice', '--to', address, '--data', data, '--password-file', pwFile, ...common()])
    expect(estimated.exitCode).toBe(1)
    expect(estimated.error?.message).toMatch(/^node error 3: execution reverted: unlucky number/)
    expect(await pendingNonce(ALICE!.address)).toBe(nonce)
  })

  it('--nonce replaces a pending transaction: cast fee flags below +10% refused, then fees bumped automatically; the original is never mined', async () => {
    const pendingHashes = async (): Promise<string[]> =>
      (await rpc<{ hash: string }[]>(t.url, 'eth_getPendingTransactions')).result!.map((tx) => tx.hash)
    const to = Wallet.createRandom().address
    const nonce = await pendingNonce(ALICE!.address)
    const send = (...flags: string[]) =>
      runCli(TxSend, ['--from', 'alice', '--to', to, '--password-file', pwFile, '--json', ...common(), ...flags])

    // A fee cap of a quarter of the base fee stays pending: no proposal can include it until about ten
    // empty blocks have lowered the base fee to it. Its tip, that same quarter, is twice the tip the node
    // suggests (an eighth of the base fee), so the automatic bump below is what sets the new tip.
    const head = (await rpc<{ baseFeePerGas: string }>(t.url, 'eth_getBlockByNumber', ['latest', false])).result!
    const low = BigInt(head.baseFeePerGas) / 4n || 1n
    const stuck = await send('--value', '1', '--gas-price', `${low}wei`, '--priority-gas-price', String(low))
    expect(stuck.error).toBeUndefined()
    const original = jsonOf<TxSendResult>(stuck)
    expect(original).toMatchObject({ nonce: Number(nonce), type: 'eip1559', gasPrice: String(low), priorityGasPrice: String(low) })
    expect(original.replaced).toBeNull()
    expect(await pendingHashes()).toContain(original.hash)

    // the same fees are no bump: the node refuses them, as geth
    const same = await send('--value', '2', '--nonce', String(nonce), '--gas-price', String(low), '--priority-gas-price', String(low))
    expect(same.exitCode).toBe(1)
    expect(jsonOf(same)).toEqual({ error: { message: 'node error -32000: replacement transaction underpriced', code: -32000 } })

    // exactly +10% rounded up is enough (the names --max-fee / --priority-fee are aliases); still pending
    const plus10 = bumpFee(low)
    const bumped = jsonOf<TxSendResult>(
      await send('--value', '3', '--nonce', String(nonce), '--max-fee', String(plus10), '--priority-fee', String(plus10)),
    )
    expect(bumped).toMatchObject({ nonce: Number(nonce), gasPrice: String(plus10), priorityGasPrice: String(plus10), replaced: null })
    const pool = await pendingHashes()
    expect(pool).toContain(bumped.hash)
    expect(pool).not.toContain(original.hash)

    // no fee flags: the tip is the pending one's +10% rounded up, the fee cap the node's fill (higher than its +10%)
    const replacing = await send('--value', '4', '--nonce', String(nonce), '--wait')
    expect(replacing.error).toBeUndefined()
    const replacement = jsonOf<TxSendResult>(replacing)
    expect(replacement).toMatchObject({ nonce: Number(nonce), status: 1, replaced: bumped.hash, value: '4' })
    expect(replacement.priorityGasPrice).toBe(String(bumpFee(plus10)))
    expect(BigInt(replacement.gasPrice)).toBeGreaterThan(bumpFee(plus10))
    expect(await balanceOf(to)).toBe(4n)
    for (const hash of [original.hash, bumped.hash]) {
      expect((await rpc(t.url, 'eth_getTransactionReceipt', [hash])).result).toBeNull()
      expect((await rpc(t.url, 'eth_getTransactionByHash', [hash])).result).toBeNull()
    }
    expect(await pendingNonce(ALICE!.address)).toBe(nonce + 1n)
  })

  it('tx set-validator takes --from as a key-store name', async () => {
    const pubKey = ed25519FromSeed(new Uint8Array(32).fill(11)).publicKey
    const run = await runCli(TxSetValidator, [
      '--pubkey',
      bytesToBase64(pubKey),
      '--power',
      '1',
      '--from',
      'admin',
      '--password-file',
      pwFile,
      '--json',
      ...common(),
    ])
    expect(run.error).toBeUndefined()
    expect(jsonOf(run) as SetValidatorResult).toMatchObject({ status: 1, from: ADMIN!.address, power: '1' })
  })
})
