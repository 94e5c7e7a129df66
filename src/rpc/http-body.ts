/**
 * Reading a request body under a size limit, for every RPC listener. A body over the limit is refused
 * from its Content-Length before anything is read, or as soon as the streamed bytes pass the limit,
 * without keeping more than the limit; the rest is then drained (up to {@link DRAIN_LIMIT}) so a client
 * that is still sending reads the answer instead of a broken pipe.
 */
import type { IncomingMessage } from 'node:http'

/** Bytes of a refused body read and thrown away; a client that keeps sending past this loses its connection. */
const DRAIN_LIMIT = 64 * 1024 * 1024

/** A body over the limit (Go's `http.MaxBytesReader` text). */
export class BodyTooLargeError extends Error {
  /** `size`: the declared Content-Length, or the bytes received when the limit was passed. */
  constructor(
    readonly size: string,
    readonly limit: number,
  ) {
    super('http: request body too large')
  }
}

/** The declared Content-Length when it is over `limit`, else undefined. */
export function declaredOverLimit(req: IncomingMessage, limit: number): string | undefined {
  const declared = req.headers['content-length']
  return declared !== undefined && Number(declared) > limit ? declared : undefined
}

/** Reads and throws away the rest of a refused body, up to {@link DRAIN_LIMIT} bytes, then drops the connection. */
export function drainBody(req: IncomingMessage): void {
  let drained = 0
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length
    if (drained > DRAIN_LIMIT) req.socket.destroy()
  })
  req.resume()
}

/**
 * Reads the whole body; rejects with BodyTooLargeError past `limit` (the rest is drained) or with the stream's error.
 * The listeners are inline arrows: the start bundle keeps function names (`keepNames`), which costs a
 * property definition for every named function made per request.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = declaredOverLimit(req, limit)
    if (declared !== undefined) {
      drainBody(req)
      return reject(new BodyTooLargeError(declared, limit))
    }
    const chunks: Buffer[] = []
    let size = 0
    let refused = false
    req.on('data', (chunk: Buffer) => {
      if (refused) return
      size += chunk.length
      if (size <= limit) {
        chunks.push(chunk)
        return
      }
      refused = true
      drainBody(req)
      reject(new BodyTooLargeError(String(size), limit))
    })
    req.on('end', () => {
      if (!refused) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    })
    req.on('error', reject)
  })
}
