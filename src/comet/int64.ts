/** Saturating int64 arithmetic in bigint, as CometBFT's `safeAddClip` / `safeSubClip` (types/validator_set.go). */

export const INT64_MAX = (1n << 63n) - 1n
/** Go `math.MinInt64`. */
export const INT64_MIN = -(1n << 63n)

/** Clamps to [−2^63, 2^63−1]. */
export function clipInt64(v: bigint): bigint {
  return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : v
}

/** a + b clamped to int64. */
export function safeAddClip(a: bigint, b: bigint): bigint {
  return clipInt64(a + b)
}

/** a − b clamped to int64. */
export function safeSubClip(a: bigint, b: bigint): bigint {
  return clipInt64(a - b)
}

/** Wraps to int64 as Go's unchecked int64 arithmetic does. */
export function wrapInt64(v: bigint): bigint {
  return BigInt.asIntN(64, v)
}

/** Euclidean division for a positive divisor (Go `big.Int.Div`): floor, unlike BigInt `/` which truncates. */
export function floorDiv(a: bigint, n: bigint): bigint {
  const q = a / n
  return a % n !== 0n && a < 0n ? q - 1n : q
}
