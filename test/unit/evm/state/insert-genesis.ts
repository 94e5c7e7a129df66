/** The genesis state built account by account through a state manager: the reference the bottom-up build must match. */
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { Address, createAccount } from '@ethereumjs/util'
import type { GenesisAccount } from '../../../../src/evm/genesis.js'

/** The state root of `accounts` inserted one by one into an empty in-memory state. */
export async function insertGenesis(accounts: readonly GenesisAccount[]): Promise<Uint8Array> {
  const sm = new MerkleStateManager()
  for (const a of accounts) {
    const address = new Address(a.address)
    await sm.putAccount(address, createAccount({ nonce: a.nonce, balance: a.balance }))
    if (a.code) await sm.putCode(address, a.code)
    for (const [slot, value] of a.storage) await sm.putStorage(address, slot, value)
  }
  return sm.getStateRoot()
}
