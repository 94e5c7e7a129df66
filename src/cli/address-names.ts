/**
 * Addresses on the command line: `0x` and 40 hex digits, or the name of a key in the key store of
 * `--home` (`nodectl keys add alice`, the dev accounts `dev0`…`dev9` of a `--dev` home), wherever a
 * command takes an account.
 */
import { homePaths, resolveHome } from '../config/home.js'
import { KeyStore, looksLikeAddress } from '../keystore/key-store.js'
import { UsageError } from './failure.js'

/** The address `input` names; `what` is how the error names the value (`address`, `--from`). Throws UsageError. */
export async function resolveAddress(input: string, what: string, home: string | undefined): Promise<`0x${string}`> {
  if (looksLikeAddress(input)) return input as `0x${string}`
  if (input.startsWith('0x')) throw new UsageError(`invalid ${what} "${input}": want 0x followed by 40 hex digits`)
  const store = new KeyStore({ dir: homePaths(resolveHome(home)).keystoreDir })
  const key = await store.lookup(input)
  if (!key)
    throw new UsageError(
      `invalid ${what} "${input}": not an address (0x followed by 40 hex digits), nor a key name in ${store.dir} (see nodectl keys list)`,
    )
  return key.address as `0x${string}`
}
