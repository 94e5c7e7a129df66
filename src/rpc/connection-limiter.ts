/**
 * `max-open-connections` as geth's `netutil.LimitListener`: at most `max` connections are served at a
 * time; further ones wait (accepted but not read) until a served connection closes, instead of being
 * dropped as `server.maxConnections` would do.
 */
import net, { type Socket } from 'node:net'

/** A listening front that hands sockets to `serve`, never more than `max` at once. */
export interface LimitedListener {
  readonly server: net.Server
  /** Stops accepting and drops the connections still waiting for a slot. */
  close(callback: () => void): void
}

function ignoreError(): void {}

/**
 * Creates the front; `serve` gets each admitted socket paused. As node:http's own server: half-open
 * sockets are allowed (a client that ends its side still reads the answer), and Nagle's algorithm is
 * off (the last segment of a large answer would otherwise wait for the client's delayed ACK, 40 ms).
 */
export function createLimitedListener(serve: (socket: Socket) => void, max: number): LimitedListener {
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
    waiting.push(socket)
  })

  return {
    server,
    close(callback) {
      server.close(() => callback())
      for (const socket of waiting.splice(0)) socket.destroy()
    },
  }
}
