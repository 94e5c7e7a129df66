/**
 * The HTTP requests of the consensus RPC dialect (CometBFT `rpc/jsonrpc/server/http_*.go`): JSON-RPC
 * POST to `/` (single, batch, notifications), URI routes `/<route>?arg=…` (id -1), the HTML route list
 * on an empty body, and CometBFT's HTTP statuses for each failure (docs/consensus-rpc.md).
 * Bodies are read by the shared transport under `max_body_bytes` (rpc/http-body.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { readBody } from '../../rpc/http-body.js'
import type { RouteDispatcher } from './dispatch.js'
import { CometErrorCode, errorResponse, renderCometError, responseToJson, successResponse, type RpcResponse } from './errors.js'
import { parseJsonGo } from './go-json-error.js'
import { isCacheable, type RouteDef } from './route.js'
import { parseRpcRequest, type RpcRequest } from './rpc-request.js'
import { stringifyJson } from './wire-json.js'

/** The id of every URI response (`URIClientRequestID`). */
export const URI_REQUEST_ID = -1
/** `Cache-Control` of cacheable routes: one day. */
const CACHE_CONTROL = 'public, max-age=86400'

/** Limits the HTTP handlers apply. */
export interface HttpLimits {
  maxBodyBytes: number
  maxRequestBatchSize: number
}

function writeResponses(res: ServerResponse, status: number, responses: RpcResponse[], cache = false): void {
  const body = responses.length === 1 ? stringifyJson(responseToJson(responses[0]!)) : stringifyJson(responses.map(responseToJson))
  res.setHeader('Content-Type', 'application/json')
  if (cache) res.setHeader('Cache-Control', CACHE_CONTROL)
  res.writeHead(status)
  res.end(body)
}

/** `http.NotFound`: plain `404 page not found`. */
export function writeNotFound(res: ServerResponse): void {
  res.setHeader('Content-Type', 'text/plain; charset=utf-8')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.writeHead(404)
  res.end('404 page not found\n')
}

/** `writeListOfEndpoints`: the HTML page an empty POST or GET `/` gets. */
export function writeEndpointList(req: IncomingMessage, res: ServerResponse, routes: ReadonlyMap<string, RouteDef>): void {
  const host = req.headers.host ?? ''
  const names = [...routes.keys()].sort()
  const noArgs = names.filter((n) => routes.get(n)!.params.length === 0)
  const withArgs = names.filter((n) => routes.get(n)!.params.length > 0)
  let html = '<html><body><br>Available endpoints:<br>'
  for (const name of noArgs) html += `<a href="//${host}/${name}">//${host}/${name}</a></br>`
  html += '<br>Endpoints that require arguments:<br>'
  for (const name of withArgs) {
    const link =
      `//${host}/${name}?` +
      routes
        .get(name)!
        .params.map((p) => `${p.name}=_`)
        .join('&')
    html += `<a href="${link}">${link}</a></br>`
  }
  html += '</body></html>'
  res.setHeader('Content-Type', 'text/html')
  res.writeHead(200)
  res.end(html)
}

/** Answers a body-read failure: 400 with -32600 and no id. */
function writeReadError(res: ServerResponse, err: unknown): void {
  writeResponses(res, 400, [
    errorResponse(undefined, CometErrorCode.InvalidRequest, `error reading request body: ${(err as Error).message}`),
  ])
}

/** JSON-RPC over HTTP POST to `/`. */
export async function handleJsonRpc(
  dispatcher: RouteDispatcher,
  limits: HttpLimits,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  let body: Buffer
  try {
    body = await readBody(req, limits.maxBodyBytes)
  } catch (err) {
    writeReadError(res, err)
    return
  }
  if (body.length === 0) {
    writeEndpointList(req, res, dispatcher.routes)
    return
  }
  let requests: RpcRequest[]
  try {
    const parsed = parseJsonGo(body.toString('utf8'))
    if (Array.isArray(parsed)) {
      // maxBatchSizeMiddleware (rpc/jsonrpc/server/http_server.go): a batch of request objects over the limit
      // is refused whole, one -32600 without id, with HTTP 200 as every answer it writes with WriteRPCResponseHTTP.
      if (
        limits.maxRequestBatchSize > 0 &&
        parsed.length > limits.maxRequestBatchSize &&
        parsed.every((r) => r === null || (typeof r === 'object' && !Array.isArray(r)))
      ) {
        const detail = `batch request exceeds maximum (${limits.maxRequestBatchSize}) allowed number of requests`
        writeResponses(res, 200, [errorResponse(undefined, CometErrorCode.InvalidRequest, detail)])
        return
      }
      try {
        requests = parsed.map(parseRpcRequest)
      } catch {
        // Go then retries the body as one request object, which an array is not.
        throw new Error('json: cannot unmarshal array into Go value of type types.RPCRequest')
      }
    } else {
      requests = [parseRpcRequest(parsed)]
    }
  } catch (err) {
    writeResponses(res, 500, [errorResponse(undefined, CometErrorCode.ParseError, `error unmarshaling request: ${(err as Error).message}`)])
    return
  }

  const responses: RpcResponse[] = []
  let cache = true
  for (const request of requests) {
    if (request.id === undefined) continue // notifications get no reply, also inside batches
    const route = dispatcher.routes.get(request.method)
    if (!route || route.wsOnly) {
      responses.push(errorResponse(request.id, CometErrorCode.MethodNotFound))
      cache = false
      continue
    }
    try {
      const args = dispatcher.argsFromJson(route, request.params)
      cache &&= isCacheable(route, args)
      responses.push(successResponse(request.id, await dispatcher.call(route, args)))
    } catch (err) {
      // Unlike CometBFT, an error response is never marked cacheable.
      cache = false
      responses.push(renderCometError(request.id, err))
    }
  }
  if (responses.length === 0) {
    res.writeHead(200)
    res.end()
    return
  }
  writeResponses(res, 200, responses, cache)
}

/** Values of a URI request: the query string, then a form-encoded body (`r.FormValue`). */
async function uriValues(req: IncomingMessage, limits: HttpLimits): Promise<(name: string) => string> {
  const url = new URL(req.url ?? '/', 'http://localhost')
  let form: URLSearchParams | undefined
  if (
    (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') &&
    req.method !== 'GET' &&
    req.method !== 'HEAD'
  ) {
    form = new URLSearchParams((await readBody(req, limits.maxBodyBytes)).toString('utf8'))
  }
  return (name) => url.searchParams.get(name) || form?.get(name) || ''
}

/** A URI route: `/<route>?arg=…`, any HTTP method, always `"id":-1`. */
export async function handleUri(
  dispatcher: RouteDispatcher,
  limits: HttpLimits,
  route: RouteDef,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (route.wsOnly) {
    writeResponses(res, 404, [errorResponse(URI_REQUEST_ID, CometErrorCode.MethodNotFound)])
    return
  }
  let get: (name: string) => string
  try {
    get = await uriValues(req, limits)
  } catch (err) {
    writeReadError(res, err)
    return
  }
  let args: Record<string, unknown>
  try {
    args = dispatcher.argsFromUri(route, get)
  } catch (err) {
    writeResponses(res, 500, [renderCometError(URI_REQUEST_ID, err)])
    return
  }
  try {
    const result = await dispatcher.call(route, args)
    writeResponses(res, 200, [successResponse(URI_REQUEST_ID, result)], isCacheable(route, args))
  } catch (err) {
    writeResponses(res, 500, [renderCometError(URI_REQUEST_ID, err)])
  }
}
