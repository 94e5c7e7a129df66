/**
 * Bases of the client commands: ClientCommand (endpoints, JWT headers, errors) and RpcCommand for the
 * HTTP ones (query, filter: `--node`, `--home`, `--json` — oclif prints what run() returns); the
 * subscribe commands build on ClientCommand in subscription-command.ts. Every failure is one clear line:
 * `cannot reach node at URL`, or the node's JSON-RPC error with its code, with a non-zero exit.
 */
import { Errors, Flags } from '@oclif/core'
import { HttpRpcClient, JsonRpcClientError, NodeUnreachableError, ProtocolError } from '../rpc/client/index.js'
import { MalformedUrlError, resolveEndpoints, type ConnectionFlags, type EndpointName, type Endpoints } from './endpoints.js'
import { EXIT_FAILURE, EXIT_USAGE } from './failure.js'
import { loadAuthHeaders, mayAuthenticate } from './jwt-auth.js'
import { NodectlCommand } from './nodectl-command.js'

/**
 * The connection flags every client command takes (endpoints.ts), as cast names the first: a command
 * that does not use one accepts it all the same. `--node`, `--ws` and `--rpc`, their former names, still work.
 */
export const connectionFlags = {
  'rpc-url': Flags.string({
    char: 'r',
    aliases: ['node'],
    summary:
      'EVM JSON-RPC over HTTP: host:port or http(s)://… [default: $NODECTL_RPC_URL, $ETH_RPC_URL, the running node of --home, ' +
      'its app.toml [json-rpc] address, http://127.0.0.1:8545].',
    helpGroup: 'CONNECTION',
  }),
  'ws-url': Flags.string({
    aliases: ['ws'],
    summary:
      'EVM JSON-RPC over WebSocket (subscriptions): host:port or ws(s)://… [default: $NODECTL_WS_URL, the running node of --home, ' +
      'its app.toml [json-rpc] ws-address, ws://127.0.0.1:8546].',
    helpGroup: 'CONNECTION',
  }),
  'comet-url': Flags.string({
    aliases: ['rpc'],
    summary:
      'Consensus (CometBFT) RPC: host:port, tcp://… or http(s)://… [default: $NODECTL_COMET_URL, the running node of --home, ' +
      'its config.toml [rpc] laddr, http://127.0.0.1:26657].',
    helpGroup: 'CONNECTION',
  }),
  home: Flags.string({
    summary: 'Node home whose running node or files give the default URLs [default: $NODECTL_HOME, else ~/.nodectl].',
    helpGroup: 'CONNECTION',
  }),
}

/** One line for an error of the client: what the user sees. */
export function describeClientError(err: unknown): string | undefined {
  if (err instanceof NodeUnreachableError) return err.message
  if (err instanceof JsonRpcClientError)
    return `node error ${err.code}: ${err.rpcMessage}${err.data !== undefined ? ` (data: ${JSON.stringify(err.data)})` : ''}`
  if (err instanceof ProtocolError) return err.message
  return undefined
}

/** A command that talks to a running node: endpoints, tokens and error rendering (no flags of its own). */
export abstract class ClientCommand extends NodectlCommand {
  /**
   * Endpoints from the parsed flags and the environment (see endpoints.ts); a malformed URL of `use`, the
   * endpoint the command talks to, is a usage error.
   */
  protected async endpoints(flags: ConnectionFlags, use: EndpointName): Promise<Endpoints> {
    try {
      return await resolveEndpoints(flags, process.env, use)
    } catch (err) {
      if (err instanceof MalformedUrlError) throw new Errors.CLIError(err.message, { exit: EXIT_USAGE })
      throw err
    }
  }

  /** Authorization headers for `url` (empty when no token may or can be sent). */
  protected async authHeaders(url: string, home: string, homeGiven: boolean): Promise<() => Record<string, string>> {
    const headers = mayAuthenticate(url, homeGiven) ? await loadAuthHeaders(home) : undefined
    return headers ?? (() => ({}))
  }

  /** `--json` errors: `{"error": {"message", "code"?}}` (oclif's default would drop the message). */
  protected override toErrorJson(err: unknown): unknown {
    const e = err as { message?: string; rpcCode?: number }
    return { error: { message: e.message ?? String(err), ...(e.rpcCode !== undefined ? { code: e.rpcCode } : {}) } }
  }

  /** The one line shown for a client error; undefined for other errors (oclif's rendering). */
  protected describeError(err: unknown): string | undefined {
    return describeClientError(err)
  }

  /** Client errors become one clear line and exit status 1; `--json` prints them as `{"error": ...}`. */
  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    const line = this.describeError(err)
    if (line === undefined) return super.catch(err)
    const cli = new Errors.CLIError(line, { exit: EXIT_FAILURE })
    if (err instanceof JsonRpcClientError) Object.assign(cli, { rpcCode: err.code })
    return super.catch(cli)
  }
}

/** A command that talks to a running node over HTTP JSON-RPC (`--rpc-url`, `--home`, `--json`). */
export abstract class RpcCommand extends ClientCommand {
  static override enableJsonFlag = true
  static override baseFlags = connectionFlags

  /** An HTTP client for the node chosen by the flags, sending a JWT when the home has jwt.hex (jwt-auth.ts). */
  protected async httpClient(flags: ConnectionFlags): Promise<HttpRpcClient> {
    const endpoints = await this.endpoints(flags, 'http')
    return new HttpRpcClient(endpoints.http, { headers: await this.authHeaders(endpoints.http, endpoints.home, flags.home !== undefined) })
  }
}
