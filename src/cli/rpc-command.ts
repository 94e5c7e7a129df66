/**
 * Base of the client commands (query, filter, subscribe): the `--node`, `--ws` and `--home` flags,
 * `--json` (oclif prints what run() returns), and one clear line for every failure:
 * `cannot reach node at URL`, or the node's JSON-RPC error with its code, with a non-zero exit.
 */
import { Command, Errors, Flags } from '@oclif/core'
import { HttpRpcClient, JsonRpcClientError, NodeUnreachableError, ProtocolError } from '../rpc/client/index.js'
import { resolveEndpoints, type Endpoints } from './endpoints.js'

/** Exit status of a failed client command. */
export const EXIT_FAILURE = 1

/** The flags every client command has. */
export const endpointFlags = {
  node: Flags.string({ summary: 'HTTP JSON-RPC URL of the node [default: app.toml [json-rpc] address of --home, else http://127.0.0.1:8545].', helpGroup: 'CONNECTION' }),
  ws: Flags.string({ summary: 'WebSocket JSON-RPC URL of the node [default: app.toml [json-rpc] ws-address of --home, else ws://127.0.0.1:8546].', helpGroup: 'CONNECTION' }),
  home: Flags.string({ summary: 'Node home whose app.toml gives the default URLs [default: $NODECTL_HOME, else ~/.nodectl].', helpGroup: 'CONNECTION' }),
}

/** One line for an error of the client: what the user sees. */
export function describeClientError(err: unknown): string | undefined {
  if (err instanceof NodeUnreachableError) return err.message
  if (err instanceof JsonRpcClientError) return `node error ${err.code}: ${err.rpcMessage}${err.data !== undefined ? ` (data: ${JSON.stringify(err.data)})` : ''}`
  if (err instanceof ProtocolError) return err.message
  return undefined
}

/** A command that talks to a running node over JSON-RPC. */
export abstract class RpcCommand extends Command {
  static override enableJsonFlag = true
  static override baseFlags = { ...endpointFlags }

  /** Endpoints from the parsed flags (see endpoints.ts). */
  protected endpoints(flags: { node?: string; ws?: string; home?: string }): Promise<Endpoints> {
    return resolveEndpoints(flags)
  }

  /** An HTTP client for the node chosen by the flags. */
  protected async httpClient(flags: { node?: string; ws?: string; home?: string }): Promise<HttpRpcClient> {
    return new HttpRpcClient((await this.endpoints(flags)).http)
  }

  /** `--json` errors: `{"error": {"message", "code"?}}` (oclif's default would drop the message). */
  protected override toErrorJson(err: unknown): unknown {
    const e = err as { message?: string; code?: string }
    return { error: { message: e.message ?? String(err), ...(e.code !== undefined ? { code: Number(e.code) } : {}) } }
  }

  /** Client errors become one clear line and exit status 1; `--json` prints them as `{"error": ...}`. */
  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    const line = describeClientError(err)
    if (line === undefined) return super.catch(err)
    const cli = new Errors.CLIError(line, { exit: EXIT_FAILURE })
    if (err instanceof JsonRpcClientError) Object.assign(cli, { code: String(err.code) })
    return super.catch(cli)
  }
}
