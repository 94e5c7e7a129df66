/**
 * Base of the consensus-RPC client commands (`query status`, `query tx-search`, ...): `--comet-url`,
 * `--home` and `--json` (oclif prints what run() returns: the node's result as it sent it). Requests
 * are CometBFT JSON-RPC over HTTP POST with params by name. Failures are one line with a non-zero
 * exit: `cannot reach node at URL`, or the node's error with its code and data
 * (`node error -32603: Internal error: offset 14: ...`).
 */
import { Errors, Flags } from '@oclif/core'
import { HttpRpcClient, JsonRpcClientError } from '../rpc/client/index.js'
import { resolveCometEndpoints, type CometEndpoints } from './comet-endpoints.js'
import { MalformedUrlError, type ConnectionFlags } from './endpoints.js'
import { ClientCommand, connectionFlags, describeClientError } from './rpc-command.js'
import { EXIT_USAGE } from './failure.js'

/** The connection flags of the consensus commands: `-r` is accepted and ignored, as the help says. */
export const cometConnectionFlags = {
  ...connectionFlags,
  'rpc-url': Flags.string({
    char: 'r',
    aliases: ['node'],
    summary: 'Not used by the consensus commands, which talk to --comet-url; accepted so the same flags work on every command.',
    helpGroup: 'CONNECTION',
  }),
}

/** Pagination of `tx_search`, `block_search` and `validators` (CometBFT: page from 1; 30 per page by default, at most 100). */
export const pageFlags = {
  page: Flags.integer({ summary: 'Page number, from 1 [default: 1].', min: 1 }),
  'per-page': Flags.integer({ summary: 'Results per page; the node caps it at 100 [default: 30].', min: 1 }),
}

/** One line for a client error, CometBFT style: the code, the message and the `data` detail (a Go error string). */
export function describeCometError(err: unknown): string | undefined {
  if (!(err instanceof JsonRpcClientError)) return describeClientError(err)
  const data =
    err.data === undefined || err.data === null || err.data === ''
      ? ''
      : `: ${typeof err.data === 'string' ? err.data : JSON.stringify(err.data)}`
  return `node error ${err.code}: ${err.rpcMessage}${data}`
}

/** A 64-bit or `*int` parameter as cmtjson wants it: a decimal string (undefined stays absent: the node's default). */
export function encodeCometInt(value: number | undefined): string | undefined {
  return value === undefined ? undefined : String(value)
}

/** The endpoints chosen by the flags; a malformed URL is a usage error (one line, exit 2). */
export async function cometEndpointsOf(flags: ConnectionFlags): Promise<CometEndpoints> {
  try {
    return await resolveCometEndpoints(flags)
  } catch (err) {
    if (err instanceof MalformedUrlError) throw new Errors.CLIError(err.message, { exit: EXIT_USAGE })
    throw err
  }
}

/** A command that calls a node's consensus RPC over HTTP. */
export abstract class CometCommand extends ClientCommand {
  static override enableJsonFlag = true
  static override baseFlags = cometConnectionFlags

  protected override describeError(err: unknown): string | undefined {
    return describeCometError(err)
  }

  /** An HTTP client for the consensus RPC chosen by `--comet-url` / `--home`. */
  protected async cometClient(flags: ConnectionFlags): Promise<HttpRpcClient> {
    const { http } = await cometEndpointsOf(flags)
    return new HttpRpcClient(http)
  }
}
