/** Listening on host:port and naming the bound address, shared by every RPC listener. */
import type { AddressInfo, Server } from 'node:net'

export interface BoundAddress {
  host: string
  port: number
}

/** Listens on `host:port` (port 0 picks a free one); resolves with the bound address, rejects on EADDRINUSE etc. */
export function listenOn(server: Server, host: string, port: number): Promise<BoundAddress> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host, port }, () => {
      server.removeListener('error', reject)
      const info = server.address() as AddressInfo
      resolve({ host: info.address, port: info.port })
    })
  })
}

/** `scheme://host:port`, with IPv6 hosts in brackets. */
export function formatUrl(scheme: string, { host, port }: BoundAddress): string {
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`
}
