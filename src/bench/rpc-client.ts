/** A lean keep-alive JSON-RPC client for load generation (node:http, no per-request agent). */
import http from 'node:http'

export class RpcClient {
  private readonly agent: http.Agent
  private readonly url: URL
  private id = 0

  constructor(url: string, maxSockets = 64) {
    this.url = new URL(url)
    this.agent = new http.Agent({ keepAlive: true, maxSockets })
  }

  /** Sends one request; resolves with `result` or rejects with the JSON-RPC error message. */
  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params })
    const text = await this.post(body)
    const reply = JSON.parse(text) as { result?: T; error?: { code: number; message: string } }
    if (reply.error) throw new Error(`${method}: ${reply.error.message} (${reply.error.code})`)
    return reply.result as T
  }

  private post(body: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        { hostname: this.url.hostname, port: this.url.port, path: this.url.pathname, method: 'POST', agent: this.agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  }

  close(): void {
    this.agent.destroy()
  }
}
