/**
 * Who may unlock an account. An unlocked account signs eth_sendTransaction for anyone who can reach the
 * JSON-RPC, so geth refuses personal_unlockAccount whenever HTTP or WebSocket is served unless
 * `--allow-insecure-unlock`. nodectl has no IPC socket, so it draws the line at the caller instead: a
 * caller on loopback (the machine's own user, e.g. `cast` or a script next to the node) may unlock;
 * a caller from the network may only with `[json-rpc] allow-insecure-unlock`.
 */
import type { CallContext } from '../../rpc/method-table.js'
import { accountErrors } from './account-errors.js'

/** True when `ctx`'s caller may unlock accounts. */
export function mayUnlock(ctx: Pick<CallContext, 'loopback'>, allowInsecureUnlock: boolean): boolean {
  return ctx.loopback || allowInsecureUnlock
}

/** Throws geth's `account unlock with HTTP access is forbidden` when the caller may not unlock. */
export function checkUnlockAllowed(ctx: Pick<CallContext, 'loopback'>, allowInsecureUnlock: boolean): void {
  if (!mayUnlock(ctx, allowInsecureUnlock)) throw accountErrors.insecureUnlock()
}
