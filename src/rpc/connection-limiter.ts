/**
 * `max-open-connections` as geth's `netutil.LimitListener`, with a bounded wait: at most `max`
 * connections are served at a time; up to `maxQueued` further ones wait (accepted but not read) until a
 * served connection closes, and any beyond those are closed at once. Go's listener leaves them in the
 * kernel's backlog, where they hold no descriptor of the process; Node.js cannot stop accepting, so an
 * accepted socket that can neither be served nor wait gives its descriptor back at once instead
 * (descriptor-budget.ts sizes both bounds).
 */
import net, { type Socket } from 'node:net'

/** A listening front that hands sockets to `serve`, never more than `max` at once. */
export interface LimitedListener {
  readonly server: net.Server
  /** Sockets being served now. */
  readonly active: number
  /** Sockets waiting for a slot. */
  readonly queued: number
  /** Stops accepting and drops the connections still waiting for a slot. */
  close(callback: () => void): void
}

function ignoreError(): void {}

/**
 * Creates the front; `serve` gets each admitted socket paused. As node:http's own server: half-open
 * sockets are allowed (a client that ends its side still reads the answer), and Nagle's algorithm is
 * off (the last segment of a large answer would otherwise wait for the client's delayed ACK, 40 ms).
 * `refused` is told of each socket closed at once because the queue is full.
 */
export function createLimitedListener(
  serve: (socket: Socket) => void,
  max: number,
  maxQueued: number = Number.POSITIVE_INFINITY,
  refused: () => void = () => {},
): LimitedListener {
  let active = 0
  const waiting: Socket[] = []

  const release = (): void => {
    active--
    while (active < max && waiting.length > 0) {
      const next = waiting.shift()!
      if (!next.destroyed) admit(next)
    }
  }

  const admit = (socket: Socket): void => {
    active++
    socket.removeListener('error', ignoreError)
    socket.once('close', release)
    serve(socket)
  }

  const server = net.createServer({ pauseOnConnect: true, allowHalfOpen: true, noDelay: true }, (socket) => {
    if (active < max) return admit(socket)
    socket.on('error', ignoreError)
    if (waiting.length >= maxQueued) {
      // No answer is written: the socket is closed before anything of it is read, as an overflowing backlog would.
      socket.destroy()
      return refused()
    }
    waiting.push(socket)
  })

  return {
    server,
    get active() {
      return active
    },
    get queued() {
      return waiting.length
    },
    close(callback) {
      server.close(() => callback())
      for (const socket of waiting.splice(0)) socket.destroy()
    },
  }
}
