import { Session } from 'node:inspector/promises'
import { writeFileSync } from 'node:fs'
export async function profile<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const s = new Session(); s.connect()
  await s.post('Profiler.enable'); await s.post('Profiler.start')
  try { return await fn() } finally {
    const { profile } = await s.post('Profiler.stop')
    writeFileSync(`/tmp/evmperf/${name}.cpuprofile`, JSON.stringify(profile)); s.disconnect()
  }
}
