/**
 * `max-open-connections` as geth's `netutil.LimitListener`: at most `max` connections are served at a
 * time; further ones wait (accepted but not read) until a served connection closes, instead of being
 * dropped as `server.maxConnections` would do.
 */
import net, { type Socket } from 'node:net'
import type { Server as HttpServer } from 'node:http'

/** A listening front that hands sockets to an HTTP server, never more than `max` at once. */
export interface LimitedListener {
  readonly server: net.Server
  /** Stops accepting and drops the connections still waiting for a slot. */
  close(callback: () => void): void
}

function ignoreError(): void {}

/** Creates the front for `http` (which must not listen itself). */
export function createLimitedListener(http: HttpServer, max: number): LimitedListener {
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
    http.emit('connection', socket)
    socket.resume()
  }

  const server = net.createServer({ pauseOnConnect: true }, (socket) => {
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
