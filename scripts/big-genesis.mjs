// Adds N funded accounts (1 ether each, addresses 0x00…01 + i) to a home's genesis.json, for measuring
// a big genesis: node scripts/big-genesis.mjs HOME N
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const [home, count] = process.argv.slice(2)
if (!home || !count) throw new Error('usage: node scripts/big-genesis.mjs HOME N')
const path = join(home, 'config', 'genesis.json')
const genesis = JSON.parse(readFileSync(path, 'utf8'))
const accounts = genesis.app_state.evm.accounts
const base = 0x10000000n
for (let i = 0n; i < BigInt(count); i++) {
  accounts.push({ address: `0x${(base + i).toString(16).padStart(40, '0')}`, balance: '1000000000000000000' })
}
writeFileSync(path, JSON.stringify(genesis))
process.stdout.write(`${path}: ${accounts.length} accounts\n`)
