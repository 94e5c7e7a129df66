/** Base of the node's typed errors: each carries a machine code and, where useful, data. */
export class NodeError extends Error {
  constructor(
    message: string,
    /** JSON-RPC style code; the renderers in `rpc/` map it to the wire. */
    readonly code: number = -32000,
    readonly data?: unknown,
  ) {
    super(message)
    this.name = new.target.name
  }
}

/** A configuration value that cannot be used; `key` names the flag or TOML key. */
export class ConfigError extends Error {
  constructor(readonly key: string, message: string) {
    super(`${key}: ${message}`)
    this.name = 'ConfigError'
  }
}
