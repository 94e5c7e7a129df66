/** Whether what nodectl prints may carry ANSI colours. */

/** True when output to `stream` may be coloured: a terminal, and `NO_COLOR` unset or empty (no-color.org). */
export function shouldColor(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR
}
