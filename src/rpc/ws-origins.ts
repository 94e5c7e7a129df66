/**
 * `ws-origins`: which browser origins may open a WebSocket, with geth's rules
 * (`rpc/websocket.go` wsHandshakeValidator / ruleAllowsOrigin):
 * - a request without an `Origin` header is allowed: browsers always send one, other software can
 *   send anything, so checking it adds no security;
 * - `*` allows every origin;
 * - an entry may be a bare host (`localhost`: any scheme and port), `host:port`, or a full origin
 *   (`https://app.example:8080`); each part it names must equal the browser origin's part;
 * - an empty list allows `http://localhost` only.
 */

interface OriginParts {
  scheme: string
  hostname: string
  port: string
}

/** geth `parseOriginURL`: scheme, host name and port of an origin or of an allow-list entry. */
function parseOrigin(origin: string): OriginParts | undefined {
  const text = origin.toLowerCase()
  const sep = text.indexOf('://')
  if (sep >= 0) {
    try {
      const url = new URL(text)
      return { scheme: url.protocol.slice(0, -1), hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || explicitPort(text) }
    } catch {
      return undefined
    }
  }
  // `host` or `host:port` (geth reads these as URL scheme and opaque part).
  const colon = text.lastIndexOf(':')
  if (colon > 0 && !text.includes(']') && text.indexOf(':') === colon)
    return { scheme: '', hostname: text.slice(0, colon), port: text.slice(colon + 1) }
  return { scheme: '', hostname: text.replace(/^\[|\]$/g, ''), port: '' }
}

/** WHATWG URL drops a port equal to the scheme's default; Go keeps the text: recover it. */
function explicitPort(text: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/(?:\[[^\]]*\]|[^/:?#]*):(\d+)/.exec(text)
  return match ? match[1]! : ''
}

function ruleAllows(rule: OriginParts, browser: OriginParts): boolean {
  if (rule.scheme !== '' && rule.scheme !== browser.scheme) return false
  if (rule.hostname !== '' && rule.hostname !== browser.hostname) return false
  if (rule.port !== '' && rule.port !== browser.port) return false
  return true
}

/** Builds the origin check of a listener from its `ws-origins` list. */
export function createOriginCheck(allowed: readonly string[]): (origin: string | undefined) => boolean {
  const entries = allowed.filter((o) => o !== '')
  if (entries.includes('*')) return () => true
  const rules = (entries.length === 0 ? ['http://localhost'] : entries).map(parseOrigin).filter((r): r is OriginParts => r !== undefined)
  return (origin) => {
    if (origin === undefined) return true
    const browser = parseOrigin(origin)
    return browser !== undefined && rules.some((rule) => ruleAllows(rule, browser))
  }
}
