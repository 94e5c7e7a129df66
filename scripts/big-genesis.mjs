// Adds N funded accounts (1 ether each, addresses 0x…10000000 + i) to a home's genesis.json, for measuring
// a big genesis; with --token, also the test Token (test/fixtures/contracts/Token.sol) at TOKEN_ADDRESS
// with the N accounts as holders of 1 token each (its balanceOf slots set in the genesis storage), and every
// account already in the genesis (the dev accounts of a `--dev` home, whose keys sign) a holder of 10^9 tokens.
// Needs `npm run build` (keccak) and the dev dependency solc:
//   node scripts/big-genesis.mjs HOME N [--token]
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { keccak256 } from '../dist/crypto/index.js'

const TOKEN_ADDRESS = '0x0000000000000000000000000000000000007070'
/** Token.sol's storage slots (name, symbol, decimals, totalSupply, balanceOf). */
const SLOT = { name: 0n, symbol: 1n, decimals: 2n, totalSupply: 3n, balanceOf: 4n }
const ONE = 10n ** 18n
/** Each account already in the genesis holds this many token units: far more than a benchmark spends. */
const SENDER_TOKENS = 10n ** 27n

const [home, count, flag] = process.argv.slice(2)
if (!home || !count) throw new Error('usage: node scripts/big-genesis.mjs HOME N [--token]')
const word = (n) => n.toString(16).padStart(64, '0')
const hex = (n) => `0x${word(n)}`
/** A short Solidity string in its slot: the bytes left-aligned, 2 × length in the last byte. */
const shortString = (s) => `0x${Buffer.from(s).toString('hex').padEnd(62, '0')}${(s.length * 2).toString(16).padStart(2, '0')}`

const path = join(home, 'config', 'genesis.json')
const genesis = JSON.parse(readFileSync(path, 'utf8'))
const accounts = genesis.app_state.evm.accounts
const senders = accounts.map((a) => a.address)
const holders = []
for (let i = 0n; i < BigInt(count); i++) {
  const address = `0x${(0x10000000n + i).toString(16).padStart(40, '0')}`
  accounts.push({ address, balance: ONE.toString() })
  holders.push(address)
}
if (flag === '--token') {
  const storage = {
    [hex(SLOT.name)]: shortString('Test Token'),
    [hex(SLOT.symbol)]: shortString('TST'),
    [hex(SLOT.decimals)]: hex(18n),
    [hex(SLOT.totalSupply)]: hex(BigInt(count) * ONE + BigInt(senders.length) * SENDER_TOKENS),
  }
  const balanceSlot = (address) => `0x${Buffer.from(keccak256(Buffer.from(word(BigInt(address)) + word(SLOT.balanceOf), 'hex'))).toString('hex')}`
  for (const h of holders) storage[balanceSlot(h)] = hex(ONE)
  for (const s of senders) storage[balanceSlot(s)] = hex(SENDER_TOKENS)
  accounts.push({ address: TOKEN_ADDRESS, balance: '0', code: tokenCode(), storage })
}
writeFileSync(path, JSON.stringify(genesis))
process.stdout.write(`${path}: ${accounts.length} accounts${flag === '--token' ? `, token ${TOKEN_ADDRESS} with ${count} holders` : ''}\n`)

/** Token's runtime code, compiled as the tests compile it. */
function tokenCode() {
  const file = 'Token.sol'
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: readFileSync(resolve(import.meta.dirname, '../test/fixtures/contracts', file), 'utf8') } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { Token: ['evm.deployedBytecode.object'] } } },
  }
  const solc = createRequire(import.meta.url)('solc')
  const output = JSON.parse(solc.compile(JSON.stringify(input)))
  return `0x${output.contracts[file].Token.evm.deployedBytecode.object}`
}
