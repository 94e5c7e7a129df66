/**
 * A one-line spinner on stderr for slow steps (a standard-strength key derivation takes about two
 * seconds), shown only on a terminal; elsewhere `withSpinner` just runs the work.
 */

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
/** Frame interval (ms): fast enough to look alive, slow enough to cost nothing. */
const FRAME_MS = 80

/** Runs `work` with `text` and a spinner on stderr while it runs (when stderr is a terminal). */
export async function withSpinner<T>(text: string, work: () => Promise<T>, stream: NodeJS.WriteStream = process.stderr): Promise<T> {
  if (!stream.isTTY) return work()
  let frame = 0
  const draw = (): void => {
    stream.write(`\r${FRAMES[frame++ % FRAMES.length]} ${text}`)
  }
  draw()
  const timer = setInterval(draw, FRAME_MS)
  try {
    return await work()
  } finally {
    clearInterval(timer)
    stream.write('\r\x1b[K')
  }
}
