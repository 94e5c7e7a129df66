/**
 * The Prometheus endpoint: `GET /metrics` on `[instrumentation] prometheus_listen_addr`, answered with
 * the text exposition format; any other path is 404, as CometBFT's metrics server.
 */
import { createServer, type Server } from 'node:http'
import type { InstrumentationConfig } from '../../config/node-config.js'
import { formatUrl, listenOn } from '../../rpc/listen.js'
import type { Logger } from '../../utils/logger.js'

/** What the server answers with: the exposition text and its content type. */
export interface MetricsSource {
  readonly contentType: string
  render(): Promise<string>
}

export class MetricsServer {
  private constructor(
    private readonly server: Server,
    /** e.g. http://127.0.0.1:26660 (the bound port when 0 was asked). */
    readonly url: string,
  ) {}

  static async start(source: MetricsSource, config: InstrumentationConfig, log: Logger): Promise<MetricsServer> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]
      if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n')
        return
      }
      source.render().then(
        (text) => res.writeHead(200, { 'content-type': source.contentType }).end(req.method === 'HEAD' ? undefined : text),
        (err: unknown) => {
          log.warn('cannot render the metrics', { err })
          res.writeHead(500, { 'content-type': 'text/plain' }).end('cannot render the metrics\n')
        },
      )
    })
    if (config.maxOpenConnections > 0) server.maxConnections = config.maxOpenConnections
    const { host, port } = config.prometheusListenAddr
    const bound = await listenOn(server, host, port)
    const url = formatUrl('http', bound)
    log.info('metrics listening', { url: `${url}/metrics` })
    return new MetricsServer(server, url)
  }

  /** Stops listening and drops the connections still open. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve())
      this.server.closeAllConnections()
    })
  }
}
