// Adds N funded accounts (1 ether each, addresses 0x…10000000 + i) to a home's genesis.json, for measuring
// a big genesis; with --token, also the test Token (test/fixtures/contracts/Token.sol) at TOKEN_ADDRESS
// with the N accounts as holders of 1 token each (its balanceOf slots set in the genesis storage).
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

const [home, count, flag] = process.argv.slice(2)
if (!home || !count) throw new Error('usage: node scripts/big-genesis.mjs HOME N [--token]')
const word = (n) => n.toString(16).padStart(64, '0')
const hex = (n) => `0x${word(n)}`
/** A short Solidity string in its slot: the bytes left-aligned, 2 × length in the last byte. */
const shortString = (s) => `0x${Buffer.from(s).toString('hex').padEnd(62, '0')}${(s.length * 2).toString(16).padStart(2, '0')}`

const path = join(home, 'config', 'genesis.json')
const genesis = JSON.parse(readFileSync(path, 'utf8'))
const accounts = genesis.app_state.evm.accounts
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
    [hex(SLOT.totalSupply)]: hex(BigInt(count) * ONE),
  }
  for (const h of holders) {
    const slot = keccak256(Buffer.from(word(BigInt(h)) + word(SLOT.balanceOf), 'hex'))
    storage[`0x${Buffer.from(slot).toString('hex')}`] = hex(ONE)
  }
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
