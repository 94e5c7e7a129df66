/** The file of a unix socket the ABCI server listens on. */
import { lstat, rm } from 'node:fs/promises'
import { connect } from 'node:net'

/**
 * Removes the socket file a server that did not close left behind, so listening can succeed. A file that
 * is not a socket, or a socket some process still answers on, is left alone and refused.
 */
export async function removeStaleSocket(path: string): Promise<void> {
  const stat = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined
    throw err
  })
  if (stat === undefined) return
  if (!stat.isSocket()) throw new Error(`ABCI server: ${path} exists and is not a socket`)
  if (await isAnswered(path)) throw new Error(`ABCI server: another process listens on ${path}`)
  await rm(path, { force: true })
}

function isAnswered(path: string): Promise<boolean> {
  return new Promise((answer) => {
    const probe = connect(path)
    probe.once('connect', () => {
      probe.destroy()
      answer(true)
    })
    probe.once('error', () => answer(false))
  })
}
