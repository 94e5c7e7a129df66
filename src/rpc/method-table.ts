/**
 * Method tables (as CometBFT's `routes.go`): one entry per method with its literal name,
 * its parameter codecs and its handler. The codecs produce the handler's typed arguments, so
 * `defineMethod('eth_getBalance', [required(address), optional(blockParam, 'latest')], ([a, b]) => ...)`
 * is checked by the compiler end to end.
 */
import type { Codec } from './codecs.js'

/** One positional parameter: its codec, whether it may be omitted (or `null`), and its default. */
export interface Param<T> {
  readonly codec: Codec<T>
  readonly required: boolean
  readonly default: T | undefined
}

/** A parameter that must be present (a `null` is handed to the codec, which usually rejects it). */
export function required<T>(codec: Codec<T>): Param<T> {
  return { codec, required: true, default: undefined }
}

/** A parameter that may be omitted or `null` (geth: a pointer argument); then `fallback` is used. */
export function optional<T>(codec: Codec<T>): Param<T | undefined>
export function optional<T>(codec: Codec<T>, fallback: T): Param<T>
export function optional<T>(codec: Codec<T>, fallback?: T): Param<T | undefined> {
  return { codec, required: false, default: fallback }
}

/** The tuple of decoded arguments for a parameter list. */
export type ArgsOf<P extends readonly Param<unknown>[]> = { -readonly [K in keyof P]: P[K] extends Param<infer T> ? T : never }

/** Something that can push server-initiated messages to the caller (WebSocket); absent on HTTP. */
export interface NotificationSink {
  /** Sends one already-serialized JSON message. */
  send(message: string): void
  /** Registers a callback run once when the connection closes (subscriptions end with it). */
  onClose(callback: () => void): void
}

/** What a handler may know about the call's transport. One shared object per connection or server. */
export interface CallContext {
  readonly transport: 'http' | 'ws'
  /** Present when the transport supports notifications (eth_subscribe). */
  readonly notifications?: NotificationSink
  /** The caller may use the private namespaces (caller-auth.ts); otherwise they answer -32001. */
  readonly authorized: boolean
  /**
   * The caller is connected from a loopback address (127.0.0.0/8, ::1), decided from the socket's remote
   * address; personal_unlockAccount is refused to others unless `allow-insecure-unlock` (geth).
   */
  readonly loopback: boolean
  /** Called when a private method was refused, so HTTP can answer 401. */
  readonly onDenied?: () => void
}

/** One method: literal name, parameter codecs, handler. */
export interface MethodDef<P extends readonly Param<unknown>[] = readonly Param<unknown>[], R = unknown> {
  readonly name: string
  readonly params: P
  /** Returns the JSON result (already in wire encoding), synchronously when it can (hot path). */
  handler(args: ArgsOf<P>, ctx: CallContext): R | Promise<R>
  /** Served only over a transport with notifications; elsewhere -32000 before the params are read (geth). */
  readonly notificationsOnly?: boolean
}

/** A list of methods; a namespace file exports a function returning one. */
export type MethodTable = readonly MethodDef[]

/** Declares a method; `const` keeps the parameter tuple so the handler's arguments are typed. */
export function defineMethod<const P extends readonly Param<unknown>[], R>(
  name: string,
  params: P,
  handler: (args: ArgsOf<P>, ctx: CallContext) => R | Promise<R>,
  opts: { notificationsOnly?: boolean } = {},
): MethodDef {
  return { name, params, handler, ...opts } as unknown as MethodDef
}

/** The namespace of a method name: the part before the first underscore (`eth_call` → `eth`). */
export function namespaceOf(method: string): string {
  const i = method.indexOf('_')
  return i < 0 ? method : method.slice(0, i)
}
