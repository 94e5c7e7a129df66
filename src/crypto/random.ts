import { randomBytes as nodeRandomBytes } from 'node:crypto'

/** Cryptographically secure random bytes. */
export function randomBytes(length: number): Uint8Array {
  return new Uint8Array(nodeRandomBytes(length))
}
